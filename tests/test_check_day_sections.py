"""A check of an item dated D reads the doc sections dated D written after the item was
accepted as written after it (probe 13, 6 December), and the others as evidence.

An editor folds the day's accepted items into the living doc that evening, and the doc's
date is its last update: re-checking the accepted briefing found each item DUPLICATE of the
section it was folded into, first seen there, so a pipeline retrying ``check --accept &&
publish`` failed. Leaving out every section of the day went too far: a doc updated on day D
holds what was accepted up to D, and a briefing of day D that repeats it (never accepted, or
accepted after the doc's update) compared with none of that doc and came out NEW."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from test_finer_passages import OTHER, increment, lexical_said

from fake_encoder import FakeEncoder
from kbsearch.dedupe.check import Checker
from kbsearch.dedupe.results import CheckResult, Verdict
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store


def section(day: int) -> Record:
    return Record(
        id="doc/serving#§1.1", kind=Kind.doc_section, title="§1.1 量化", date=dt.date(2026, 11, day),
        text="KV 量化：Pebble（arXiv:2601.22222）把缓存量化到 3 bit，长序列下内存减少 6.4x，得分损失小于 0.3 分。",
        arxiv_ids=["2601.22222"],
    )  # fmt: skip


CLAIMS = ["长序列下内存减少 6.4x", "得分损失小于 0.3 分"]
ITEM = increment(CLAIMS, ["2601.22222"], day=9)
NOTE = (
    "1 living-doc section dated 2026-11-09, the item's own date, was left out as evidence (written after "
    "this input's items were accepted that day: the day's fold of them); --as-of 2026-11-10 compares with them"
)


def check(tmp_path: Path, *writes: list[Record], morning: bool = False) -> CheckResult:
    """Check ``ITEM`` after ingesting each of ``writes`` in turn; ``morning``: the doc's
    sections were written before everything else (an update of the doc that morning)."""
    encoder = FakeEncoder()
    store = Store.open(tmp_path / "idx", create=True)
    for records in writes:
        ingest_records(store, ChangeSet(upserts=records), model="fake", load_encoder=lambda: encoder)
    if morning:
        with store.db:
            store.db.execute("UPDATE records SET ingested_at = '2000-01-01' WHERE kind = 'doc_section'")
    return Checker(store, encoder, lexical_said()).check([ITEM], file=None, input_name="probe")


def test_a_section_folded_in_after_the_item_was_accepted_is_no_evidence_and_a_note_says_so(tmp_path: Path) -> None:
    result = check(tmp_path, [ITEM], [section(9), OTHER])
    [item] = result.items
    assert item.verdict is Verdict.NEW and item.resubmitted
    assert not any(c.known for c in item.claims)
    assert item.first_seen is None
    assert all(m.id != "doc/serving#§1.1" for m in item.matches)
    assert result.notes == [NOTE]


def test_a_section_of_its_day_is_evidence_for_an_item_never_accepted(tmp_path: Path) -> None:
    """The doc of day 9 held Pebble before this briefing of day 9 came in."""
    result = check(tmp_path, [section(9), OTHER])
    [item] = result.items
    assert item.verdict is Verdict.DUPLICATE
    assert item.first_seen is not None and item.first_seen.id == "doc/serving#§1.1"
    assert result.notes == []


def test_a_section_of_the_docs_update_before_the_item_was_accepted_is_evidence(tmp_path: Path) -> None:
    result = check(tmp_path, [section(9), OTHER], [ITEM], morning=True)
    [item] = result.items
    assert item.resubmitted and item.verdict is Verdict.DUPLICATE
    assert item.first_seen is not None and item.first_seen.id == "doc/serving#§1.1"


def test_a_section_of_an_earlier_day_still_states_the_claims(tmp_path: Path) -> None:
    [item] = check(tmp_path, [section(8), OTHER]).items
    assert item.verdict is Verdict.DUPLICATE
    assert item.first_seen is not None and item.first_seen.id == "doc/serving#§1.1"
