"""A check's note on the living-doc sections its date left out (probe 19).

A doc's update re-dated every one of its sections, the unchanged ones too (since probe 23
only the changed ones: ``test_doc_section_dates``). Re-checking an older briefing after
it compared the briefing's items with none of the doc: a claim the doc held since before the
briefing came out NEW, and nothing said that the doc had been left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import FAKE_CONFIG_NOTE
from support.cli import check_json, ingest_rows, run
from support.files import write_jsonl

SECTION = {
    "id": "doc/serving#tide",
    "kind": "doc_section",
    "title": "TideServe disaggregated prefill",
    "text": "TideServe splits prefill from decode and reaches 1.9x throughput on long prompts",
    "date": "2026-09-30",  # the doc's update re-dated it; it said this before 09-19 too
}
OTHER = {"id": "doc/serving#other", "kind": "doc_section", "title": "Batching", "text": "continuous batching"}
ITEM = {
    "id": "k",
    "title": "TideServe reaches 1.9x on long prompts",
    "text": "TideServe splits prefill from decode: 1.9x throughput on long prompts",
    "instance": "tom",
    "date": "2026-09-19",
}
NOTE = (
    "2 living-doc sections dated after 2026-09-19, the item's own date, were left out as evidence "
    "(a section is dated by the doc's update that last changed its text); "
    "--as-of DATE, the doc's update or later, compares with them"
)


def checked(capsys: pytest.CaptureFixture[str], tmp_path: Path, index: Path, *extra: str) -> dict[str, Any]:
    path = str(write_jsonl(tmp_path / "in.jsonl", [ITEM]))
    return check_json(capsys, "check", path, "--index", str(index), *extra)[1]


def test_a_check_says_how_many_later_doc_sections_its_date_left_out(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = ingest_rows(capsys, tmp_path, [SECTION, {**OTHER, "date": "2026-09-30"}])
    result = checked(capsys, tmp_path, index)
    assert result["notes"] == [NOTE, FAKE_CONFIG_NOTE]
    assert all(m["id"] != SECTION["id"] for m in result["items"][0]["matches"])
    code, out, _ = run(capsys, "check", str(tmp_path / "in.jsonl"), "--index", str(index))
    assert code == 0 and f"\nnote: {NOTE}" in out
    # An --as-of before them says so as its own; one on their day leaves none out, and no note of them.
    early = checked(capsys, tmp_path, index, "--as-of", "2026-09-20")["notes"]
    assert early == [NOTE.replace("2026-09-19, the item's own date", "the --as-of date 2026-09-20"), FAKE_CONFIG_NOTE]
    assert checked(capsys, tmp_path, index, "--as-of", "2026-09-30")["notes"] == [FAKE_CONFIG_NOTE]


def test_no_note_when_no_doc_section_is_later(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Later records of other kinds (another writer's notes) are what a past day's check is
    meant to leave out; a doc section dated the item's day or undated is compared with or
    left out by the day's own rule (``check_day``): none is counted."""
    later_note = {**ITEM, "id": "spark-later", "instance": "spark", "date": "2026-09-30"}
    index = ingest_rows(capsys, tmp_path, [{**SECTION, "date": "2026-09-19"}, OTHER, later_note])
    assert checked(capsys, tmp_path, index)["notes"] == [FAKE_CONFIG_NOTE]


def test_the_tui_check_summary_shows_the_notes() -> None:
    """The TUI's check summary showed the flags and warnings, not the input's notes."""
    from kbsearch.dedupe.results import CheckResult
    from kbsearch.tui.check_screen import summary

    result = CheckResult(input="in.md", model="m", as_of=None, items=[], notes=[NOTE])
    assert summary(result).plain.endswith(f"\n  note: {NOTE}")


def test_a_recheck_says_how_many_sections_of_its_day_were_folded_in_after_it(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Tom's briefing accepted on 09-19, then the doc's evening fold dated 09-19: a re-check
    leaves the fold out and says so, in the text output and in --json (the TUI shows the same notes)."""
    index = ingest_rows(capsys, tmp_path, [ITEM], name="briefing.jsonl")
    code, _, err = run(
        capsys,
        "ingest",
        str(write_jsonl(tmp_path / "doc.jsonl", [{**SECTION, "date": "2026-09-19"}])),
        "--index",
        str(index),
    )
    assert code == 0, err
    same = (
        "1 living-doc section dated 2026-09-19, the item's own date, was left out as evidence (written after "
        "this input's items were accepted that day: the day's fold of them); --as-of 2026-09-20 compares with them"
    )
    assert checked(capsys, tmp_path, index)["notes"] == [same, FAKE_CONFIG_NOTE]
    code, out, _ = run(capsys, "check", str(tmp_path / "in.jsonl"), "--index", str(index))
    assert code == 0 and f"\nnote: {same}" in out
    assert checked(capsys, tmp_path, index, "--as-of", "2026-09-20")["notes"] == [FAKE_CONFIG_NOTE]
