"""``check - --path FILE``: a briefing piped in is read as the file it is published as, so
that accepting it stores the records a later ``ingest FILE`` finds stored, not a second copy
under ids of no file (``tom/<stdin>@2026-12-09#1``). With the fake encoder."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from support.cli import ingest_rows, run

KNOWN = [{"id": "k1", "title": "量子退火 调度 电网", "text": "电网 负荷 预测", "date": "2026-09-01"}]
BRIEFING = (
    "inference · E1 预消化简报(2026-12-09)\n"
    "增量 1：MoE-Lens：按专家统计的推理时显存剖析工具（⭐⭐）\n要点：\n- 按专家统计显存占用\n"
    "本报告由 Tom 实例自动生成\n"
)
PUBLISHED = "2026-12-09-tom-inference-e1prep.md"


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    return str(ingest_rows(capsys, tmp_path, KNOWN))


def piped(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text: str, *argv: str
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    return run(capsys, "check", "-", *argv)


def stored(capsys: pytest.CaptureFixture[str], index: str) -> list[str]:
    return sorted(set(run(capsys, "list", "--format", "ids", "--index", index)[1].split()) - {"k1"})


def test_stdin_named_with_path_is_stored_as_that_file_and_its_ingest_finds_it_stored(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = piped(capsys, monkeypatch, BRIEFING, "--path", f"pub/{PUBLISHED}", "--accept", "--index", index)
    document = json.loads(
        piped(capsys, monkeypatch, BRIEFING, "--path", f"pub/{PUBLISHED}", "--index", index, "--json")[1]
    )
    assert code == 0 and err == "" and "accepted 1" in out
    assert (
        document["input"] == f"pub/{PUBLISHED}"
        and document["items"][0]["id"] == "tom/2026-12-09-tom-inference-e1prep#1"
    )
    assert document["items"][0]["date"] == "2026-12-09" and document["items"][0]["instance"] == "tom"
    (tmp_path / "pub").mkdir()
    (tmp_path / "pub" / PUBLISHED).write_text(BRIEFING, encoding="utf-8")  # published after the gate
    code, out, _ = run(capsys, "ingest", f"pub/{PUBLISHED}", "--index", index)
    assert code == 0 and "0 added, 0 updated, 1 unchanged" in out
    assert stored(capsys, index) == ["tom/2026-12-09-tom-inference-e1prep#1"]


def test_stdin_accepted_without_a_name_says_how_to_name_it(
    index: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Still accepted (as before), with a warning: a later ingest of the file stores it again."""
    code, out, err = piped(capsys, monkeypatch, BRIEFING, "--accept", "--index", index)
    assert code == 0 and "accepted 1" in out and stored(capsys, index) == ["tom/<stdin>@2026-12-09#1"]
    assert err == (
        "kbsearch: warning: <stdin>: no file name: accepted as tom/<stdin>@2026-12-09#1, ids no file has, so "
        "ingesting the file it is published as stores it again: name that file with --path FILE "
        "('kbsearch remove ID' undoes this accept)\n"
    )
    code, out, err = piped(capsys, monkeypatch, BRIEFING, "--accept", "--index", index, "--json")
    assert code == 0 and err == "" and "--path FILE" in json.loads(out)["warnings"][-1]
    code, _, err = piped(capsys, monkeypatch, BRIEFING, "--index", index)  # nothing stored: nothing to say
    assert code == 0 and err == ""


def test_path_names_stdin_only(index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    briefing = tmp_path / PUBLISHED
    briefing.write_text(BRIEFING, encoding="utf-8")
    code, out, err = run(capsys, "check", str(briefing), "--path", "other.md", "--index", index)
    assert (code, out) == (2, "") and err == (
        f"kbsearch: --path names the text read from stdin (-), and {briefing} is a file, named by itself "
        f"(drop --path, or pipe the file in: kbsearch check - --path other.md < {briefing})\n"
    )


def test_an_empty_stdin_or_one_no_file_could_hold_names_stdin(
    index: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = piped(capsys, monkeypatch, "", "--path", PUBLISHED, "--index", index)
    assert code == 2 and err.startswith("kbsearch: stdin is empty (pipe the text of ")
    code, _, err = piped(capsys, monkeypatch, "just a line of text\n", "--path", PUBLISHED, "--index", index)
    assert code == 2 and err.startswith(f"kbsearch: <stdin> read as {PUBLISHED}: unrecognised format")
