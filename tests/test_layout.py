"""The code stays in rooms a reader can take in: no module over 400 lines, a README under 20 kB,
the declared layers kept and no import cycle."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kbsearch"
BENCH = PACKAGE.parent / "bench"
MAX_LINES = 400


def test_no_module_is_over_400_lines() -> None:
    sizes = {
        path.relative_to(PACKAGE): len(path.read_text(encoding="utf-8").splitlines()) for path in PACKAGE.rglob("*.py")
    }
    assert len(sizes) > 50  # the package was found
    assert {str(path): n for path, n in sizes.items() if n > MAX_LINES} == {}


TOP_LEVEL = {"kb", "records", "responses", "filters", "limits", "models", "settings", "errors"}
"""The facade and what every room shares; everything else lives in a package of its concept."""


def test_the_top_level_keeps_about_eight_modules() -> None:
    loose = {path.stem for path in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    modules = loose | {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()} & {"kb"}
    assert modules == TOP_LEVEL, "a new top-level module belongs in the package of its concept"


def test_every_package_says_what_it_offers() -> None:
    for init in PACKAGE.glob("*/__init__.py"):
        text = init.read_text(encoding="utf-8")
        assert text.startswith('"""') and len(text.split('"""')[1]) > 40, (
            f"{init.parent.name}/__init__.py needs a docstring"
        )


def test_the_readme_stays_a_users_page() -> None:
    """Under 20 kB: design notes and measurements belong in docs/."""
    readme = PACKAGE.parent / "README.md"
    assert 5_000 < readme.stat().st_size < 20_000


def test_the_import_contracts_hold_and_no_module_imports_in_a_circle() -> None:
    """``lint-imports``, as ``make lint`` runs it: the declared layers, the
    forbidden imports and the cycle check (devtools/import_cycles.py)."""
    lint_imports = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(lint_imports), "--no-cache", "--no-logo"], cwd=PACKAGE.parent, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " 0 broken" in done.stdout


def test_no_bench_imports_another_in_a_circle() -> None:
    """The benches import each other by bare name (``import corpus``), which
    lint-imports does not follow: the same cycle check, on those names."""
    import ast

    from devtools.import_cycles import cycles

    names = {path.stem for path in BENCH.glob("*.py")}
    graph: dict[str, dict[str, int]] = {}
    for path in BENCH.glob("*.py"):
        edges: dict[str, int] = {}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges.update({a.name: node.lineno for a in node.names if a.name in names})
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module in names:
                edges[node.module] = node.lineno
        graph[path.stem] = edges
    assert sum(map(len, graph.values())) > 10  # the benches' imports were read
    assert cycles(graph) == []


def test_python_m_bench_lists_every_bench() -> None:
    done = subprocess.run([sys.executable, "-m", "bench"], cwd=BENCH.parent, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    listed = {line.split()[0] for line in done.stdout.splitlines()[2:] if line.strip()}
    runnable = {p.stem for p in BENCH.glob("*.py") if '__name__ == "__main__"' in p.read_text(encoding="utf-8")}
    assert listed == runnable - {"__main__"} and "cold_start" in listed
