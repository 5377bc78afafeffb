"""The core must stay importable without the TUI or the model stack."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kbsearch"
HEAVY = ("torch", "sentence_transformers", "textual")


def loaded_after(statement: str) -> set[str]:
    code = f"{statement}; import sys; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_search_core_loads_neither_torch_nor_textual() -> None:
    modules = loaded_after("import kbsearch.search, kbsearch.kb, kbsearch.store, kbsearch.ingest")
    assert not [m for m in modules if m.split(".")[0] in HEAVY]


def test_cli_help_path_loads_nothing_heavy() -> None:
    modules = loaded_after("import kbsearch.cli; kbsearch.cli.build_parser()")
    assert not [m for m in modules if m.split(".")[0] in (*HEAVY, "faiss")]


def test_only_the_embed_package_imports_the_model_stack() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "embed" in path.relative_to(PACKAGE).parts or "tui" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in HEAVY]
    assert offenders == []


def test_no_pickle_anywhere() -> None:
    for path in PACKAGE.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "import pickle" not in source and "trust_remote_code=True" not in source, path
