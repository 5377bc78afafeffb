"""The core must stay importable without the TUI or the model stack."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

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


def loaded_by_cli(*argv: str) -> set[str]:
    """The modules a whole CLI run leaves in sys.modules (listed on stderr; stdout is the command's)."""
    code = (
        "import sys\nfrom kbsearch.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True, cwd=PACKAGE.parent
    )
    return set(out.stderr.split())


@pytest.fixture
def small_index(fake_models: Path, tmp_path: Path) -> str:
    from kbsearch.cli import main

    source = tmp_path / "in.jsonl"
    source.write_text(
        '{"id": "a", "title": "TriAttention", "text": "KV cache in the frequency domain"}\n', encoding="utf-8"
    )
    index = str(tmp_path / "idx")
    assert main(["ingest", str(source), "--index", index]) == 0
    return index


def test_help_and_stats_load_no_model_stack(small_index: str) -> None:
    # `--help` and `stats` must start in well under half a second: torch alone takes over one.
    for argv in (["--help"], ["stats", "--index", small_index]):
        modules = loaded_by_cli(*argv)
        assert "kbsearch.cli" in modules
        assert not [m for m in modules if m.split(".")[0] in (*HEAVY, "transformers")], argv


def test_stats_skips_the_parsers_and_the_checker(small_index: str) -> None:
    modules = loaded_by_cli("stats", "--index", small_index)
    assert not modules & {"yaml", "kbsearch.parse", "kbsearch.dedupe.check", "kbsearch.dedupe.audit", "kbsearch.ingest"}


def test_the_core_loads_no_milvus_client_until_an_index_needs_it() -> None:
    """pymilvus is an optional extra, imported by ``vector_index.milvus`` when a collection opens."""
    modules = loaded_after("import kbsearch.search, kbsearch.kb, kbsearch.store, kbsearch.vector_index.milvus")
    assert not [m for m in modules if m.split(".")[0] in ("pymilvus", "milvus_lite")]
