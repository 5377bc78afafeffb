"""``python -m bench NAME [ARGS]``: run one bench; bare, list them."""

from __future__ import annotations

import ast
import os
import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def benches() -> dict[str, str]:
    """Each runnable module (one with a ``__main__`` block) and its docstring's first line."""
    found = {}
    for path in sorted(HERE.glob("*.py")):
        if path.name.startswith("_"):
            continue
        source = path.read_text(encoding="utf-8")
        if '__name__ == "__main__"' not in source:
            continue  # a shared piece
        doc = ast.get_docstring(ast.parse(source)) or ""
        found[path.stem] = doc.strip().splitlines()[0] if doc.strip() else ""
    return found


def main(argv: list[str]) -> int:
    known = benches()
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m bench NAME [ARGS]   (NAME --help: its options)\n")
        width = max(map(len, known))
        for name, line in known.items():
            print(f"  {name:<{width}}  {line}")
        return 0
    name, *rest = argv
    if name not in known:
        print(f"python -m bench: no bench {name!r}; run python -m bench to list them", file=sys.stderr)
        return 2
    # An ingest with a judge starts the token fill in the background (kbsearch/kb/token_fill.py):
    # beside a bench it would take a core from what is measured next. The benches that
    # measure the fill run it themselves (alignment_cost, serve_load --filled).
    os.environ.setdefault("KBSEARCH_TOKEN_FILL", "0")
    sys.path.insert(0, str(HERE))  # the benches import each other by bare name, as scripts
    sys.argv = [str(HERE / f"{name}.py"), *rest]
    runpy.run_path(sys.argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
