"""A DUPLICATE ``check --accept --skip-duplicates`` left out stays out of a later ``ingest`` (h65a).

A team's nightly ``kbsearch ingest`` of every briefing stored the items the gate had skipped,
undoing its decision (audit then showed them as repeats). The accept now remembers each skip
in its own transaction (``store.skips``, schema 12); ``ingest`` leaves out an item of that id
and content hash and names it, ``--include-skipped`` stores it, and an item rewritten since is
ingested as any changed item is. Either way the memory of it goes.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from support.briefings import written_briefing
from support.cli import check_json, run, run_json
from test_accept_skip_duplicates import FRESH, ITEM, KEDA, OTHER, REPEAT, SPARK, inbox_file, index, state
from test_upgrade_format import schema, set_schema

import kbsearch.store.writer as writer
from kbsearch.store.migrations import ON_OPEN, SKIPPED_ITEMS

__all__ = ["index"]  # the fixture, shared


def skip_and_accept(capsys: pytest.CaptureFixture[str], tmp_path: Path, index: str, text: str = "") -> Path:
    jay = inbox_file(tmp_path, "jay", text or written_briefing("2026-09-21", [ITEM, OTHER]))
    code, result = check_json(capsys, "check", str(jay), "--accept", "--skip-duplicates", "--index", index)
    assert code == 0 and [s["id"] for s in result["skipped"]] == [REPEAT]
    return jay


def remembered(index: str) -> list[tuple[str, str | None, str]]:
    db = sqlite3.connect(Path(index) / "kb.sqlite")
    try:
        if schema(Path(index)) < SKIPPED_ITEMS:
            return []
        return list(db.execute("SELECT id, file, repeats FROM skipped_items"))
    finally:
        db.close()


def test_ingest_leaves_out_what_the_accept_skipped_and_says_so(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jay = skip_and_accept(capsys, tmp_path, index)
    [(rid, file, repeats)] = remembered(index)
    assert rid == REPEAT and file and Path(file).name == jay.name and repeats == f'["{SPARK}"]'
    before = state(index)
    report = run_json(capsys, "ingest", str(jay), "--index", index)
    assert state(index) == before and report["added"] == 0 and report["unchanged"] == 1  # KEDA, stored already
    [skipped] = report["skipped"]
    assert skipped["id"] == REPEAT and skipped["repeats"] == [SPARK] and skipped["skipped_at"]
    code, out, _ = run(capsys, "ingest", str(jay), "--index", index)
    assert code == 0
    assert f"{REPEAT}: skipped: a DUPLICATE of {SPARK}, left out by check --accept --skip-duplicates on " in out
    # --include-skipped stores it, and the skip is forgotten: the next ingest finds it unchanged.
    report = run_json(capsys, "ingest", str(jay), "--include-skipped", "--index", index)
    assert report["added_ids"] == [REPEAT] and report["skipped"] == []
    assert remembered(index) == [] and REPEAT in state(index)[1]


def test_an_item_rewritten_since_the_skip_is_ingested_and_forgotten(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jay = skip_and_accept(capsys, tmp_path, index)
    rewritten = (ITEM[0], ITEM[1] + ", and 2.3x on GB300 with the new scheduler", ITEM[2])
    jay.write_text(written_briefing("2026-09-21", [rewritten, OTHER]), encoding="utf-8")
    report = run_json(capsys, "ingest", str(jay), "--index", index)
    assert report["added_ids"] == [REPEAT] and report["skipped"] == []
    assert remembered(index) == []


def test_a_later_plain_accept_checks_the_item_as_any_and_forgets_it_once_stored(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jay = skip_and_accept(capsys, tmp_path, index)
    code, refused = check_json(capsys, "check", str(jay), "--accept", "--index", index)
    assert code == 1 and refused["accept_refused"] and [r[0] for r in remembered(index)] == [REPEAT]  # as today
    assert run(capsys, "remove", SPARK, "--index", index)[0] == 0  # what it repeated is gone: it is NEW now
    code, accepted = check_json(capsys, "check", str(jay), "--accept", "--index", index)
    assert code == 0 and REPEAT in accepted["accepted"] and remembered(index) == []


def test_a_refused_accept_remembers_nothing(index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An accept refused after the check (its item 1 is another item under a stored id) stores nothing,
    and remembers no skip of its item 2 either."""
    notes = inbox_file(tmp_path, "jay", written_briefing(None, [OTHER]), "notes.md")
    assert check_json(capsys, "check", str(notes), "--accept", "--index", index)[0] == 0
    before = state(index)
    notes.write_text(written_briefing(None, [FRESH, OTHER]), encoding="utf-8")  # 1: other news; 2: stored as 1
    code, _, err = run(capsys, "check", str(notes), "--accept", "--skip-duplicates", "--index", index)
    assert code == 2 and "is stored for another item" in err and state(index) == before
    assert remembered(index) == []


def test_the_skip_is_remembered_in_the_accepts_transaction(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that fails after the records and the skip are written (disk full, say) leaves neither."""

    def full(db: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(writer.passages, "stamp", full)
    before = state(index)
    jay = inbox_file(tmp_path, "jay", written_briefing("2026-09-21", [ITEM, OTHER]))
    code, _, err = run(capsys, "check", str(jay), "--accept", "--skip-duplicates", "--index", index)
    assert code == 2 and "full" in err and state(index) == before
    assert remembered(index) == [] and schema(Path(index)) == ON_OPEN


def test_an_index_before_schema_12_upgrades_on_the_first_skip_and_keeps_every_record(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    set_schema(Path(index), ON_OPEN - 1)  # an index of an older kbsearch
    records = state(index)[1]
    assert run(capsys, "stats", "--index", index)[0] == 0
    assert schema(Path(index)) == ON_OPEN  # opened: upgraded as before, still readable by the version before
    skip_and_accept(capsys, tmp_path, index)
    assert schema(Path(index)) == SKIPPED_ITEMS and state(index)[1] == records | {KEDA}
    set_schema(Path(index), SKIPPED_ITEMS + 1)  # what a kbsearch before this one sees: a newer schema
    code, _, err = run(capsys, "stats", "--index", index)
    assert code == 2 and "written by a newer kbsearch" in err


def test_a_backup_keeps_the_remembered_skips(index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``kbsearch backup`` copies the whole database (SQLite's online backup), the table with it."""
    jay = skip_and_accept(capsys, tmp_path, index)
    copy = str(tmp_path / "copy")
    assert run(capsys, "backup", copy, "--index", index)[0] == 0
    report = run_json(capsys, "ingest", str(jay), "--index", copy)
    assert [s["id"] for s in report["skipped"]] == [REPEAT] and report["added"] == 0


def test_the_note_on_skipped_items_reads_as_english() -> None:
    from kbsearch.ingest.accepting import ingest_note

    assert "leaves it out while it is unchanged (--include-skipped stores it)" in ingest_note(["a#1"], "b.md")
    two = ingest_note(["a#1", "a#2"], None)
    assert "leaves them out while they are unchanged (--include-skipped stores them)" in two
