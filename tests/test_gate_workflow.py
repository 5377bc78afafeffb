"""The gate's daily workflow, end to end through the CLI (issue 24, items 1-3 and 5).

A writer that keeps one inbox file checks and accepts it every day. Nothing
it accepted is ever replaced by another item, a repeat of what the file held
yesterday is caught, the accept is all or nothing, and an index folder whose
database is gone, empty or never finished is refused, never silently
replaced by an empty one.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import FAKE_CONFIG_NOTE
from support.briefings import written_briefing
from support.cli import check_json, index_files, ingest_rows, run, run_json

from kbsearch.store import DB_NAME, Store

ITEMS = {
    "flashinfer": (
        "FlashInfer 0.6 adds FP4 attention kernels for Blackwell",
        "FP4 attention kernels reach 1.9x the FP8 throughput on B200 at equal accuracy",
    ),
    "keda": (
        "KEDA autoscaling of vLLM replicas on the prefix cache hit ratio",
        "Scaling on queue depth and prefix cache hits keeps p99 latency under 2 s at half the GPUs",
    ),
    "pricing": (
        "Cached-input pricing falls to one tenth of the list price",
        "Three providers now bill cached prompt tokens at 10% of the uncached rate",
    ),
}


def briefing(day: str | None, *names: str, table: str | None = None) -> str:
    """One increment per name of ``ITEMS``, from spark's inbox; no date line when ``day`` is None;
    ``table``: an arXiv id its id table lists as new today."""
    items = [(*ITEMS[name], f"inbox/spark/{name}.md") for name in names]
    return written_briefing(day, items, table)


@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    return tmp_path / "inbox" / "spark" / "today.md"


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """An index holding one note that none of the items repeats."""
    base = [{"id": "jay-note", "title": "量子退火 调度 电网", "text": "电网 负荷 预测", "date": "2026-09-01"}]
    return str(ingest_rows(capsys, tmp_path, base))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def accept(capsys: pytest.CaptureFixture[str], path: Path, index: str, *extra: str) -> tuple[int, dict]:
    return check_json(capsys, "check", str(path), "--accept", "--index", index, *extra)


def stored_ids(capsys: pytest.CaptureFixture[str], index: str) -> list[str]:
    code, out, _ = run(capsys, "list", "--format", "ids", "--index", index)
    assert code == 0
    return sorted(set(out.split()) - {"jay-note"})


def test_one_inbox_file_reused_on_three_days_keeps_every_record_and_catches_the_repeat(
    inbox: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, day1 = accept(capsys, write(inbox, briefing("2026-09-20", "flashinfer")), index)
    assert code == 0 and day1["items"][0]["verdict"] == "NEW"
    code, day2 = accept(capsys, write(inbox, briefing("2026-09-21", "keda")), index)
    assert code == 0 and day2["items"][0]["verdict"] == "NEW"
    assert stored_ids(capsys, index) == ["spark/today@2026-09-20#1", "spark/today@2026-09-21#1"]
    before = index_files(Path(index))
    code, day3 = accept(capsys, write(inbox, briefing("2026-09-22", "flashinfer")), index)
    assert code == 1 and day3["accepted"] == []
    repeat = day3["items"][0]
    assert repeat["verdict"] == "DUPLICATE" and repeat["first_seen"]["id"] == "spark/today@2026-09-20#1"
    assert index_files(Path(index)) == before


def test_a_reused_file_keeps_the_id_tables_of_earlier_days(
    inbox: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Day 2's accept adds its id table; day 1's, kept under the same file, stays."""
    assert accept(capsys, write(inbox, briefing("2026-09-20", "flashinfer", table="2609.19671")), index)[0] == 0
    assert accept(capsys, write(inbox, briefing("2026-09-21", "keda", table="2609.20001")), index)[0] == 0
    store = Store.open(Path(index))
    try:
        assert sorted(m.arxiv_id or "" for m in store.id_mentions()) == ["2609.19671", "2609.20001"]
    finally:
        store.close()


def test_ingesting_a_reused_file_each_day_adds_and_never_renames(
    inbox: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that holds another item at the same place tomorrow is not a rename of yesterday's record."""
    for day, name in (("2026-09-20", "flashinfer"), ("2026-09-21", "keda")):
        code, out, err = run(capsys, "ingest", str(write(inbox, briefing(day, name))), "--index", index)
        assert code == 0, err
        assert "is now" not in out + err
    assert stored_ids(capsys, index) == ["spark/today@2026-09-20#1", "spark/today@2026-09-21#1"]


def test_prune_keeps_a_reused_files_earlier_days_and_names_what_it_removes(
    inbox: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A daily `ingest inbox --prune` deleted yesterday's items and id tables: the file no longer
    held them. It holds one day at a time; only what is dropped from the day it holds is gone."""
    days = [
        briefing("2026-09-20", "flashinfer", "pricing", table="2609.11111"),
        briefing("2026-09-21", "keda", "pricing"),
        briefing("2026-09-22", "keda", "pricing", table="2609.19671"),
        briefing("2026-09-22", "keda"),  # the day's file rewritten: its second item and table dropped
    ]
    for text in days:
        code, out, err = run(capsys, "ingest", str(write(inbox, text)), "--index", index, "--prune")
        assert code == 0, err
    assert "1 removed" in out and "removed: spark/today@2026-09-22#2" in out
    assert stored_ids(capsys, index) == [
        "spark/today@2026-09-20#1",
        "spark/today@2026-09-20#2",
        "spark/today@2026-09-21#1",
        "spark/today@2026-09-21#2",
        "spark/today@2026-09-22#1",
    ]
    store = Store.open(Path(index))
    try:
        assert [m.arxiv_id for m in store.id_mentions()] == ["2609.11111"]
    finally:
        store.close()


def test_a_reused_file_repeating_yesterdays_item_at_the_same_place_keeps_yesterdays_record(
    inbox: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ingested as is, day 2's word-for-word repeat renamed day 1's record to day 2's id and date:
    the first saying was lost, and audit would have dated it a day late."""
    for day in ("2026-09-20", "2026-09-21"):
        code, out, err = run(capsys, "ingest", str(write(inbox, briefing(day, "flashinfer"))), "--index", index)
        assert code == 0, err
        assert "is now" not in out + err
    assert stored_ids(capsys, index) == ["spark/today@2026-09-20#1", "spark/today@2026-09-21#1"]


def test_accepting_the_same_submission_again_changes_nothing(
    inbox: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Accepted again, every item was written again: a new generation, new time
    stamps, the full-text tables rewritten (and each serving worker reloaded its
    vectors), where ingest of the same file wrote nothing."""
    write(inbox, briefing("2026-09-20", "flashinfer", "keda", table="2609.19671"))
    code, first = accept(capsys, inbox, index)
    assert code == 0 and first["unchanged"] == []
    before = index_files(Path(index))
    code, again = accept(capsys, inbox, index)
    assert code == 0 and [i["verdict"] for i in again["items"]] == ["NEW", "NEW"]
    assert all(i["resubmitted"] for i in again["items"])
    assert again["accepted"] == again["unchanged"] == first["accepted"]
    assert index_files(Path(index)) == before
    code, out, _ = run(capsys, "check", str(inbox), "--accept", "--index", index)
    assert code == 0 and out.rstrip().endswith(f"; accepted 2 (2 unchanged)\nnote: {FAKE_CONFIG_NOTE}")
    assert index_files(Path(index)) == before


def test_accepting_a_submission_with_one_item_edited_writes_that_item_only(
    inbox: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    write(inbox, briefing("2026-09-20", "flashinfer", "keda"))
    assert accept(capsys, inbox, index)[0] == 0
    generation = run_json(capsys, "stats", "--index", index)["generation"]
    write(inbox, briefing("2026-09-20", "flashinfer", "keda").replace("1.9x", "2.1x"))
    code, edited = accept(capsys, inbox, index)
    assert code == 0 and edited["unchanged"] == ["spark/today@2026-09-20#2"]
    assert run_json(capsys, "stats", "--index", index)["generation"] == generation + 1
    assert "2.1x" in run_json(capsys, "show", "spark/today@2026-09-20#1", "--index", index)["text"]


def test_a_mixed_briefing_stores_nothing_then_its_fixed_version_everything(
    inbox: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert accept(capsys, write(inbox, briefing("2026-09-20", "flashinfer")), index)[0] == 0
    mixed = write(inbox.with_name("mixed.md"), briefing("2026-09-21", "keda", "flashinfer", "pricing"))
    code, result = accept(capsys, mixed, index)
    assert code == 1 and result["accepted"] == []
    assert "(spark/mixed@2026-09-21#2)" in result["accept_refused"]
    assert stored_ids(capsys, index) == ["spark/today@2026-09-20#1"]
    code, out, _ = run(capsys, "check", str(mixed), "--accept", "--index", index)
    assert code == 1 and "nothing accepted: 1 item is a DUPLICATE" in out
    fixed = write(inbox.with_name("fixed.md"), briefing("2026-09-21", "keda", "pricing"))
    code, result = accept(capsys, fixed, index)
    assert code == 0 and result["accepted"] == ["spark/fixed@2026-09-21#1", "spark/fixed@2026-09-21#2"]
    assert [i["verdict"] for i in result["items"]] == ["NEW", "NEW"]


def test_an_undated_reused_file_never_replaces_another_item_without_replace(
    inbox: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert accept(capsys, write(inbox, briefing(None, "flashinfer")), index)[0] == 0
    before = index_files(Path(index))
    write(inbox, briefing(None, "pricing"))
    code, out, err = run(capsys, "check", str(inbox), "--accept", "--index", index)
    assert code == 2 and out == ""
    assert "record id 'spark/today#1' is stored for another item 'FlashInfer 0.6" in err
    assert "--replace" in err and err.count("\n") == 1
    assert index_files(Path(index)) == before
    code, replaced = accept(capsys, inbox, index, "--replace")
    assert code == 0 and replaced["accepted"] == ["spark/today#1"]
    assert run_json(capsys, "show", "spark/today#1", "--index", index)["title"].startswith("Cached-input")


@pytest.mark.parametrize("command", [["stats"], ["search", "KV", "--mode", "lexical"], ["list"], ["audit"]])
def test_reads_refuse_an_emptied_database(
    inbox: Path, index: str, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert accept(capsys, write(inbox, briefing("2026-09-20", "flashinfer")), index)[0] == 0
    (Path(index) / DB_NAME).write_bytes(b"")
    before = index_files(Path(index))
    code, out, err = run(capsys, *command, "--index", index)
    assert code == 2 and out == ""
    assert f"{DB_NAME} is empty (0 bytes)" in err and "restore kb.sqlite from a backup" in err
    assert index_files(Path(index)) == before
    code, _, _ = run(capsys, "doctor", "--index", index)
    assert code == 2


def test_a_deleted_database_beside_its_cache_is_named_and_ingest_builds_nothing(
    inbox: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    write(inbox, briefing("2026-09-20", "flashinfer"))
    assert accept(capsys, inbox, index)[0] == 0
    (Path(index) / DB_NAME).unlink()
    before = index_files(Path(index))
    code, _, err = run(capsys, "list", "--index", index)
    assert code == 2 and f"{DB_NAME} is missing beside manifest.json" in err and "no index at" not in err
    code, _, err = run(capsys, "ingest", str(inbox), "--index", index)
    assert code == 2 and f"{DB_NAME} is missing" in err
    assert index_files(Path(index)) == before


def test_an_unfinished_first_ingest_is_named_with_its_fix(
    inbox: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a SIGKILL between creating the database and committing the first ingest leaves."""
    index = str(Path(index).with_name("fresh"))
    Store.open(Path(index), create=True).close()
    with sqlite3.connect(Path(index) / DB_NAME) as db:
        assert db.execute("SELECT count(*) FROM records").fetchone()[0] == 0
    code, _, err = run(capsys, "stats", "--index", index)
    assert code == 2 and "its first ingest stopped before it committed anything" in err
    report = run_json(capsys, "doctor", "--index", index, codes=(2,))
    assert not report["healthy"] and "run 'kbsearch ingest PATH' again" in report["findings"][0]["fix"]
    code, _, err = run(capsys, "ingest", str(write(inbox, briefing("2026-09-20", "flashinfer"))), "--index", index)
    assert code == 0, err
    assert run_json(capsys, "doctor", "--index", index)["healthy"]


@pytest.mark.parametrize("command", [["stats"], ["list"], ["search", "KV", "--mode", "lexical"]])
def test_a_read_of_an_empty_database_alone_writes_nothing_into_it(
    tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A first ingest killed right after creating kb.sqlite leaves 0 bytes and no cache: a read
    names the unfinished ingest and must not make the file a database (SQLite would, on open)."""
    index = tmp_path / "killed"
    index.mkdir()
    (index / DB_NAME).write_bytes(b"")
    code, out, err = run(capsys, *command, "--index", str(index))
    assert code == 2 and out == "" and "first ingest" in err
    assert [p.name for p in index.iterdir()] == [DB_NAME] and (index / DB_NAME).stat().st_size == 0


@pytest.mark.parametrize("command", ["ingest", "audit", "reindex", "doctor"])
def test_a_command_without_a_server_form_refuses_while_a_server_is_set(
    inbox: Path, index: str, command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 24, item 4: with KBSEARCH_SERVER set, 'ingest today/' built a local ./index and exited 0."""
    monkeypatch.setenv("KBSEARCH_SERVER", "http://127.0.0.1:9")
    monkeypatch.setenv("KBSEARCH_TOKEN", "t")
    fresh = Path(index).with_name("would-be-local")
    argv = [command, *([str(write(inbox, briefing("2026-09-20", "flashinfer")))] if command == "ingest" else [])]
    code, out, err = run(capsys, *argv, "--index", str(fresh))
    assert code == 2 and out == "" and not fresh.exists()
    assert f"KBSEARCH_SERVER is set (http://127.0.0.1:9), and '{command}' has no server form" in err
    assert "--local" in err and err.count("\n") == 1
    code, _, err = run(capsys, *argv, "--index", index, "--local")
    assert code == 0, err


def test_an_edited_item_checked_again_is_matched_with_its_own_earlier_version(
    inbox: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = briefing("2026-09-20", "flashinfer")
    assert accept(capsys, write(inbox, text), index)[0] == 0
    write(inbox, text.replace("1.9x the FP8 throughput", "2.3x the FP8 throughput"))
    code, result = check_json(capsys, "check", str(inbox), "--index", index)
    [item] = result["items"]
    assert code == 0 and item["verdict"] == "UPDATE"  # a new figure
    own = "spark/today@2026-09-20#1"
    assert item["id"] == own and item["own_earlier_version"] and not item["resubmitted"]
    assert item["reason"].startswith(f"same item as its own earlier version {own} ")  # then by what, and its claims
    _, out, _ = run(capsys, "check", str(inbox), "--index", index)
    assert f"first seen: spark 2026-09-20 {own} (its own earlier version)" in out
