"""check tells what the parser skipped in its input, as ingest does: an increment
without a title was dropped from the verdicts without a word, and a briefing
naming no writer was checked (and accepted) with no instance, one naming no date
with ids another day's file replaces. With the fake encoder."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import FAKE_CONFIG_NOTE
from support.cli import check_json, ingest_rows, run
from support.files import write

from kbsearch.parse.briefing import NO_DATE, NO_WRITER

KNOWN = [{"id": "k1", "title": "Paged attention for serving", "text": "paged KV blocks", "date": "2026-09-01"}]
UNSIGNED = (
    "inference · E1 预消化简报(2026-09-20)\n"
    "增量 1：Speculative decoding with EAGLE draft heads（⭐⭐⭐）\n要点：\n- drafts four tokens a step\n"
    "增量 2：⭐⭐\n要点：\n- a point under no title\n"
)


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    return str(ingest_rows(capsys, tmp_path, KNOWN))


def test_check_reports_what_the_parser_skipped_in_json_and_text(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    briefing = write(tmp_path / "2026-09-20-brief.md", UNSIGNED)
    _, document = check_json(capsys, "check", str(briefing), "--index", index)
    assert [item["title"] for item in document["items"]] == ["Speculative decoding with EAGLE draft heads"]
    skipped = [w for w in document["warnings"] if "increment without a title" in w]
    assert len(skipped) == 1 and skipped[0].startswith("line 5")
    assert NO_WRITER in document["warnings"]
    code, out, err = run(capsys, "check", str(briefing), "--index", index)
    # On stderr, naming the file as ingest does: a gate's stdout may go to a log or nowhere.
    assert code == 0 and f"kbsearch: warning: {briefing}: line 5: increment without a title; skipped\n" in err
    assert f"kbsearch: warning: {briefing}: {NO_WRITER}\n" in err
    assert "increment without a title" not in out  # the summary, then the config's note:
    assert out.rstrip().endswith(f"; 2 input warnings on stderr\nnote: {FAKE_CONFIG_NOTE}")
    code, out, err = run(capsys, "check", str(briefing), "--index", index, "--json")
    assert code == 0 and err == ""  # under --json they are the document's warnings


def test_check_of_stdin_warns_naming_stdin(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(UNSIGNED))
    code, _, err = run(capsys, "check", "-", "--index", index)
    assert code == 0 and "kbsearch: warning: <stdin>: line 5: increment without a title; skipped\n" in err


def test_a_clean_input_has_no_warnings(index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    briefing = write(tmp_path / "brief.md", UNSIGNED.split("增量 2")[0] + "本报告由 Tom 实例自动生成\n")
    _, document = check_json(capsys, "check", str(briefing), "--index", index)
    assert document["warnings"] == []
    _, out, err = run(capsys, "check", str(briefing), "--index", index)
    assert "warning" not in out + err


def test_an_undated_reused_inbox_file_is_warned_of_by_ingest_and_check(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a date its item is nova/today#1 every day: the next day's item silently replaced it."""
    today = tmp_path / "inbox" / "nova" / "today.md"
    write(today, "llm-infra · E1 预消化简报\n增量 1：Day one（⭐⭐⭐）\n要点：\n- alpha\n本报告由 Nova 实例自动生成\n")
    code, out, err = run(capsys, "ingest", str(today), "--index", index)
    # On stderr, as check's: a nightly ingest's stdout may go nowhere.
    assert code == 0 and f"kbsearch: warning: {today}: {NO_DATE}\n" in err
    assert "1 input warning on stderr" in out and NO_DATE not in out
    write(today, "llm-infra · E1 预消化简报\n增量 1：Day two（⭐⭐⭐）\n要点：\n- beta\n本报告由 Nova 实例自动生成\n")
    _, document = check_json(capsys, "check", str(today), "--index", index)
    assert document["items"][0]["id"] == "nova/today#1" and document["warnings"] == [NO_DATE]
