"""Security: no pickle, no remote code, no network but the hub, no escape codes
on the terminal, and record text never reaching a shell or a path."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import types
import unicodedata
from pathlib import Path

import pytest

from kbsearch.cli import main
from kbsearch.models import ModelSpec

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kbsearch"
BAD = ROOT / "tests" / "data" / "bad"
UNSAFE_MODULES = {
    "pickle",
    "cPickle",
    "_pickle",
    "dill",
    "cloudpickle",
    "joblib",
    "shelve",
    "marshal",
    "subprocess",
    "pty",
}
UNSAFE_CALLS = {"system", "popen", "spawnl", "spawnv", "execv", "execve", "execl", "startfile"}
# The builtins, called by bare name; torch's ``module.eval()`` (inference mode) is not one.
UNSAFE_BUILTINS = {"eval", "exec"}
# Reviewed exceptions. background.py starts ``python -m kbsearch.store.compaction INDEX``
# and ``python -m kbsearch.kb.token_fill INDEX MODEL`` in the background: an argument
# list (no shell), this interpreter, the index folder and a models.txt name, never
# text from a record.
ALLOWED = {"background.py: import subprocess"}


def modules() -> list[tuple[Path, ast.AST]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in sorted(PACKAGE.rglob("*.py"))]


def test_no_pickle_shell_or_eval_in_the_package() -> None:
    found = []
    for path, tree in modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [f"{path.name}: import {a.name}" for a in node.names if a.name.split(".")[0] in UNSAFE_MODULES]
            elif isinstance(node, ast.ImportFrom) and node.module:
                if node.module.split(".")[0] in UNSAFE_MODULES:
                    found.append(f"{path.name}: from {node.module}")
            elif isinstance(node, ast.Call):
                attr = getattr(node.func, "attr", None)
                bare = node.func.id if isinstance(node.func, ast.Name) else None
                if attr in UNSAFE_CALLS or bare in UNSAFE_CALLS | UNSAFE_BUILTINS:
                    found.append(f"{path.name}:{node.lineno}: {attr or bare}()")
                found += [
                    f"{path.name}:{node.lineno}: {k.arg}=" for k in node.keywords if k.arg in {"allow_pickle", "shell"}
                ]
    assert [f for f in found if f not in ALLOWED] == []


def test_trust_remote_code_is_only_ever_false() -> None:
    uses = []
    for path, tree in modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "trust_remote_code":
                uses.append((path.name, isinstance(node.value, ast.Constant) and node.value.value is False))
    assert uses and all(ok for _, ok in uses), uses


def test_a_hub_model_is_loaded_without_remote_code(monkeypatch: pytest.MonkeyPatch) -> None:
    from kbsearch.embed import hub

    calls: list[dict[str, object]] = []

    class FakeSentenceTransformer:
        def __init__(self, source: str, **kwargs: object) -> None:
            calls.append(kwargs)
            if kwargs.get("local_files_only"):
                raise OSError("not cached")

    monkeypatch.setitem(
        sys.modules, "sentence_transformers", types.SimpleNamespace(SentenceTransformer=FakeSentenceTransformer)
    )
    monkeypatch.setattr(hub, "hub_reachable", lambda timeout=3.0: True)
    hub.sentence_transformers_model(ModelSpec(name="e5", source="intfloat/multilingual-e5-small"))
    assert [c["trust_remote_code"] for c in calls] == [False, False]
    assert calls[0]["local_files_only"] is True  # the cache is tried before the network


NO_NETWORK = """
import sys
attempts = []
def guard(event, args):
    if event.startswith("socket."):
        attempts.append(event)
        raise OSError("network access attempted: " + event)
sys.addaudithook(guard)
from kbsearch.cli import main
code = main(sys.argv[1:])
sys.exit(3 if attempts else code)
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["ingest", "CORPUS"],
        ["search", "KV cache"],
        ["list"],
        ["show", "good-1"],
        ["stats"],
        ["models"],
        ["doctor"],
        ["reindex"],
        ["reindex", "--model", "fake2"],
    ],
)
def test_commands_never_touch_the_network(
    fake_models: Path, tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "good-1", "title": "KV cache"}) + "\n", encoding="utf-8")
    index = tmp_path / "idx"
    if argv[0] != "ingest":
        assert main(["ingest", str(corpus), "--index", str(index)]) == 0
    args = [str(corpus) if a == "CORPUS" else a for a in argv]
    env = {"KBSEARCH_MODELS": str(fake_models), "PATH": "/usr/bin:/bin", "PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}"}
    done = subprocess.run(
        [sys.executable, "-c", NO_NETWORK, *args, "--index", str(index)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


# --- nothing a terminal would obey reaches it ----------------------------------------


def obeyed_by_terminals(text: str) -> list[str]:
    """Escape, C0/C1 controls (but newline) and bidi/format characters."""
    return sorted({repr(ch) for ch in text if ch != "\n" and unicodedata.category(ch) in {"Cc", "Cf"}})


def test_cli_text_output_carries_no_control_sequences(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "idx")
    for name in ("markup-and-escapes.jsonl", "briefing-escapes.md"):
        assert main(["ingest", str(BAD / name), "--index", index]) == 0
    printed = capsys.readouterr().out
    for argv in (
        ["search", "red title hyperlink ANSI 标题"],
        ["list"],
        ["stats"],
        ["show", "ansi-1"],
        ["show", "markup-1"],
        ["doctor"],
    ):
        assert main([*argv, "--index", index]) == 0
        out, err = capsys.readouterr()
        printed += out + err
    assert obeyed_by_terminals(printed) == []
    assert "[bold red]ALERT[/bold red]" in printed  # markup is shown as text, not obeyed
    assert "red title" in printed and "clear screen" in printed


def test_json_output_escapes_control_characters(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "idx")
    assert main(["ingest", str(BAD / "markup-and-escapes.jsonl"), "--index", index]) == 0
    capsys.readouterr()
    assert main(["show", "ansi-1", "--index", index, "--json"]) == 0
    out = capsys.readouterr().out
    assert obeyed_by_terminals(out) == []
    assert "\x1b[2J" in json.loads(out)["text"]  # kept in the data, escaped in the JSON


def test_error_lines_strip_escapes_from_file_names(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evil = tmp_path / "evil\x1b]0;pwned\x07\x1b[2J.md"
    evil.write_text("", encoding="utf-8")
    assert main(["ingest", str(evil), "--index", str(tmp_path / "idx")]) == 2
    err = capsys.readouterr().err
    assert obeyed_by_terminals(err) == [] and "evil" in err and "file is empty" in err


def test_record_text_never_becomes_a_path_or_a_command(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "pwned"
    rows = [
        {
            "id": "../../escaped",
            "title": f"$(touch {marker})",
            "text": f"`touch {marker}`; touch {marker}",
            "source": str(tmp_path / "written-here"),
            "instance": "../..",
            "topic": "/etc",
        }
    ]
    corpus = tmp_path / "rows.jsonl"
    corpus.write_text(json.dumps(rows[0]) + "\n", encoding="utf-8")
    index = tmp_path / "idx"
    before = set(tmp_path.rglob("*"))
    for argv in (
        ["ingest", str(corpus)],
        ["search", "touch"],
        ["show", "../../escaped"],
        ["list"],
        ["stats"],
        ["doctor"],
        ["reindex"],
    ):
        assert main([*argv, "--index", str(index)]) == 0
    capsys.readouterr()
    created = {p.relative_to(tmp_path) for p in set(tmp_path.rglob("*")) - before}
    assert {p.parts[0] for p in created} == {"idx"}  # nothing outside the index folder
    assert not marker.exists() and not (tmp_path / "written-here").exists()
    assert not (tmp_path / "escaped").exists()


def test_json_output_escapes_exactly_the_control_and_format_characters() -> None:
    # --json escapes these with one regex over hand-listed ranges (a character
    # at a time cost gigabytes on a million records' audit): the ranges must be
    # the running Python's Cc and Cf categories, newline aside, whatever its Unicode.
    from kbsearch.text.terminal import _CONTROL_OR_FORMAT, inert_json

    wanted = {c for c in range(0x110000) if chr(c) != "\n" and unicodedata.category(chr(c)) in ("Cc", "Cf")}
    matched = {c for c in range(0x110000) if _CONTROL_OR_FORMAT.fullmatch(chr(c))}
    assert matched == wanted
    text = json.dumps({"t": "a\x9b[2J\u202e中文\n"}, ensure_ascii=False)
    assert json.loads(inert_json(text)) == json.loads(text)
    assert "\x9b" not in inert_json(text) and "\u202e" not in inert_json(text)
