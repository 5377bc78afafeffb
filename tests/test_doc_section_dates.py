"""A living doc's sections keep their own dates across an editor's folds (probe 23).

Each evening an editor folds the day's accepted items into the living docs, moves their
"最后更新" date on and re-ingests them. Every section was re-dated by the doc's new date, the
unchanged ones too: what the doc held since day 1 read as first seen on day 3, "held by …
since" vanished, and a re-check of day 2 after the fold compared with none of the doc. Now
an unchanged section keeps its date and stored row; a changed one is dated by the change
and keeps its first day and text, so what it held then is held since then."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from conftest import fake_config
from test_doc_section_verdicts import always_said

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.check import Checker
from kbsearch.dedupe.results import ItemResult, Verdict
from kbsearch.ingest import IngestReport, ingest_parsed, ingest_records, read_inputs
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store

LOWBIT = "LowBitKV (arXiv:2610.00001) stores the KV cache in 4 bit and keeps accuracy within one point."
QUILL = "QuillFP4 (arXiv:2610.00002) quantizes weights to FP4 on Blackwell and serves 1.8x faster."
OSPREY = "Osprey (arXiv:2610.00003) combines 2:4 sparsity with FP4 weights for 1.4x faster GEMM."
DAY1 = f"""\
# serving 活文档

> 维护：E2 · 最后更新：2026-10-01

## §1.1 KV cache

{LOWBIT}

## §1.2 Quantization

{QUILL}
"""
# The evening fold of day 3: Osprey added to §1.2, §1.1 untouched, the date moved on.
DAY3 = DAY1.replace("2026-10-01", "2026-10-03").replace(QUILL, f"{QUILL} {OSPREY}")
D1, D2, D3 = dt.date(2026, 10, 1), dt.date(2026, 10, 2), dt.date(2026, 10, 3)


def ingest(index: Path, doc: Path, text: str) -> IngestReport:
    doc.write_text(text, encoding="utf-8")
    encoder = FakeEncoder()
    report = IngestReport(model=encoder.model_id)
    parsed = read_inputs([doc], report)
    store = Store.open(index, create=True)
    try:
        ingest_parsed(store, parsed, report, [doc], load_encoder=lambda: encoder)
    finally:
        store.close()
    return report


def folded(tmp_path: Path) -> Path:
    """An index holding the doc of day 1, then its fold of day 3."""
    index, doc = tmp_path / "idx", tmp_path / "knowledge" / "serving.md"
    doc.parent.mkdir()
    ingest(index, doc, DAY1)
    ingest(index, doc, DAY3)
    return index


def increment(writer: str, day: dt.date, claim: str, arxiv: str, number: int = 1) -> Record:
    return Record(
        id=f"{writer}/{day}#{number}", kind=Kind.increment, instance=writer, date=day,
        title=claim.split(" (")[0] + " result", claims=[claim], arxiv_ids=[arxiv],
    )  # fmt: skip


def check(index: Path, item: Record, stored: tuple[Record, ...] = (), as_of: dt.date | None = None) -> ItemResult:
    encoder = FakeEncoder()
    store = Store.open(index)
    try:
        if stored:
            ingest_records(store, ChangeSet(upserts=list(stored)), model="fake", load_encoder=lambda: encoder)
        [result] = Checker(store, encoder, always_said(), as_of).check([item], file=None, input_name="p").items
    finally:
        store.close()
    return result


def test_a_fold_keeps_the_dates_of_the_sections_it_did_not_change(tmp_path: Path) -> None:
    index, doc = tmp_path / "idx", tmp_path / "knowledge" / "serving.md"
    doc.parent.mkdir()
    ingest(index, doc, DAY1)
    store = Store.open(index)
    before = store.column_of_ids(["doc/serving#§1.1"], "ingested_at")
    store.close()
    report = ingest(index, doc, DAY3)
    assert (report.unchanged, report.updated) == (1, 1)
    store = Store.open(index)
    try:
        kept, changed = store.get("doc/serving#§1.1"), store.get("doc/serving#§1.2")
        assert store.column_of_ids(["doc/serving#§1.1"], "ingested_at") == before
    finally:
        store.close()
    assert kept is not None and (kept.date, kept.first_date, kept.first_text) == (D1, None, None)
    assert changed is not None and changed.date == D3
    assert (changed.first_date, changed.first_text) == (D1, QUILL)
    # Folded again with nothing changed: all stays, the first version too.
    again = ingest(index, doc, DAY3.replace("2026-10-03", "2026-10-04"))
    assert (again.unchanged, again.updated) == (2, 0)


def test_an_item_the_doc_held_since_day_1_is_first_seen_there_on_day_1_after_the_fold(tmp_path: Path) -> None:
    index = folded(tmp_path)
    lowbit = check(index, increment("tom", D3, LOWBIT, "2610.00001"))  # in an unchanged section
    assert lowbit.verdict is Verdict.DUPLICATE
    assert lowbit.first_seen is not None and (lowbit.first_seen.id, lowbit.first_seen.date) == ("doc/serving#§1.1", D1)
    quill = check(index, increment("tom", D3, QUILL, "2610.00002"))  # in the changed section's first text
    assert quill.first_seen is not None and (quill.first_seen.id, quill.first_seen.date) == ("doc/serving#§1.2", D1)
    # What the fold itself brought into the section is held only since the fold.
    osprey = check(index, increment("tom", D3, OSPREY, "2610.00003"))
    assert osprey.first_seen is not None and (osprey.first_seen.id, osprey.first_seen.date) == ("doc/serving#§1.2", D3)


def test_a_changed_section_that_held_the_item_first_is_held_since_its_first_day(tmp_path: Path) -> None:
    index = folded(tmp_path)
    tom = increment("tom", D2, QUILL, "2610.00002")
    jay = increment("jay", D3, QUILL, "2610.00002")
    result = check(index, jay, (tom,))
    assert result.first_seen is not None and result.first_seen.id == tom.id
    assert result.held_in_doc is not None and (result.held_in_doc.id, result.held_in_doc.date) == (
        "doc/serving#§1.2",
        D1,
    )


def test_a_recheck_of_day_2_after_the_fold_still_compares_with_the_unchanged_sections(tmp_path: Path) -> None:
    index = folded(tmp_path)
    result = check(index, increment("jay", D2, LOWBIT, "2610.00001"), as_of=D2)
    assert "doc/serving#§1.1" in {m.id for m in result.matches}
    assert result.verdict is Verdict.DUPLICATE and result.claims[0].best_id == "doc/serving#§1.1"


def test_audit_shows_a_changed_section_in_doc_since_its_first_text_held_the_item(tmp_path: Path) -> None:
    """Probe 23: the RiverBench and EchoVault clusters read "in doc - 2026-10-03", the fold's day,
    with no "held by … since 2026-10-01" though the doc had them on 10-01."""
    index = folded(tmp_path)
    store = Store.open(index)
    try:
        writers = (increment("tom", D2, QUILL, "2610.00002"), increment("jay", D3, QUILL, "2610.00002"))
        ingest_records(store, ChangeSet(upserts=list(writers)), model="fake", load_encoder=FakeEncoder)
        result = audit(store, "fake", fake_config())
    finally:
        store.close()
    [cluster] = [c for c in result.clusters if c.first_seen.id == "tom/2026-10-02#1"]
    section = next(m for m in cluster.repeats if m.id == "doc/serving#§1.2")
    assert section.date == D1
    assert cluster.held_in_doc is not None and (cluster.held_in_doc.id, cluster.held_in_doc.date) == (section.id, D1)
