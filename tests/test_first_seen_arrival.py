"""One day's "first seen" is the record stored first, not the alphabetically first writer (probe 14).

Two writers sent the same paper on one day; tom's briefing was accepted first, and the
gate called spark's copy a DUPLICATE of tom's. audit's cluster and a later check's
first seen named spark all the same, because one day's records were ranked by name. And
re-checking tom's stored briefing as of its own day found it a DUPLICATE of spark's copy
that arrived after it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.check import Checker
from kbsearch.dedupe.results import ItemResult, Verdict
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.render import audit_text, item_text
from kbsearch.store import ChangeSet, Store

PAPER = "2611.40001"
DAY = dt.date(2026, 11, 2)


def briefing_item(who: str, day: dt.date = DAY) -> Record:
    return Record(
        id=f"{who}/{day}#1", kind=Kind.increment, instance=who, date=day,
        title="RelayDecode: speculative decoding with a relay of small drafters",
        text=f"RelayDecode (arXiv {PAPER}) chains two small drafters and accepts 4.1 tokens per step.",
        arxiv_ids=[PAPER],
    )  # fmt: skip


OTHER = Record(id="ann/x#1", kind=Kind.increment, title="GPU health", text="per-card step time alarms")


def stored_in_order(tmp_path: Path, *writers: str) -> Store:
    """Each writer's briefing accepted in turn, in the order given."""
    store = Store.open(tmp_path / "idx", create=True)
    for n, who in enumerate(writers):
        records = [briefing_item(who)] + ([OTHER] if n == 0 else [])
        files = {r.id: f"/in/{who}.md" for r in records}
        ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=FakeEncoder)
    return store


def check(store: Store, item: Record, as_of: dt.date | None = None) -> ItemResult:
    [result] = Checker(store, FakeEncoder(), fake_config(), as_of).check([item], file=None, input_name="probe").items
    return result


def test_audit_heads_a_same_day_cluster_by_the_record_stored_first(tmp_path: Path) -> None:
    store = stored_in_order(tmp_path, "tom", "spark")
    [cluster] = [c for c in audit(store, "fake", fake_config()).clusters if c.shared_ids == [PAPER]]
    assert cluster.first_seen.id == "tom/2026-11-02#1"
    assert [m.id for m in cluster.repeats] == ["spark/2026-11-02#1"]


def test_a_later_check_finds_the_same_day_record_stored_first(tmp_path: Path) -> None:
    store = stored_in_order(tmp_path, "tom", "spark")
    item = check(store, briefing_item("stephen", DAY + dt.timedelta(days=3)))
    assert {m.id for m in item.matches if m.same_item} >= {"tom/2026-11-02#1", "spark/2026-11-02#1"}
    assert item.first_seen is not None and item.first_seen.id == "tom/2026-11-02#1"


def test_with_no_order_known_one_days_writers_still_go_by_name(tmp_path: Path) -> None:
    """Stored the other way round, the name and the arrival agree: spark first."""
    store = stored_in_order(tmp_path, "spark", "tom")
    item = check(store, briefing_item("stephen", DAY + dt.timedelta(days=3)))
    assert item.first_seen is not None and item.first_seen.id == "spark/2026-11-02#1"


def test_rechecking_a_stored_briefing_hides_its_days_records_stored_after_it(tmp_path: Path) -> None:
    store = stored_in_order(tmp_path, "tom", "spark")
    first = check(store, briefing_item("tom"), as_of=DAY)
    assert first.verdict is Verdict.NEW, first.reason
    assert all(m.id != "spark/2026-11-02#1" for m in first.matches)
    # spark's copy, stored after tom's, still repeats it.
    later = check(store, briefing_item("spark"), as_of=DAY)
    assert later.verdict is Verdict.DUPLICATE
    assert later.first_seen is not None and later.first_seen.id == "tom/2026-11-02#1"


def test_an_item_not_stored_still_sees_every_record_of_its_day(tmp_path: Path) -> None:
    """No order is known against an input never accepted: its day's records stay."""
    store = stored_in_order(tmp_path, "tom", "spark")
    item = check(store, briefing_item("stephen"), as_of=DAY)
    assert {m.id for m in item.matches if m.same_item} == {"tom/2026-11-02#1", "spark/2026-11-02#1"}


SECTION = Record(
    id="doc/inference#§1.3", kind=Kind.doc_section, title="§1.3 speculative decoding", date=DAY - dt.timedelta(days=1),
    text=f"- RelayDecode (arXiv {PAPER}): a relay of small drafters.\n- TreeShift: draft trees shifted per batch.",
    arxiv_ids=[PAPER],
)  # fmt: skip


def test_first_seen_says_a_doc_section_held_the_item_earlier(tmp_path: Path) -> None:
    """A section is never the item, but the report says it held it before the first writer."""
    store = stored_in_order(tmp_path, "tom")
    ingest_records(store, ChangeSet(upserts=[SECTION]), model="fake", load_encoder=FakeEncoder)
    later = briefing_item("stephen", DAY + dt.timedelta(days=1)).model_copy(update={"anchor": "本次新增"})
    item = check(store, later)
    assert item.first_seen is not None and item.first_seen.id == "tom/2026-11-02#1"
    assert item.held_in_doc is not None and item.held_in_doc.id == SECTION.id
    [flag] = item.flags
    assert flag.message.endswith("held by doc/inference §1.3 since 2026-11-01")
    assert "first seen: tom 2026-11-02 tom/2026-11-02#1, held by doc/inference §1.3 since 2026-11-01" in item_text(item)
    # audit's cluster header, once stephen's repeat is stored too
    ingest_records(store, ChangeSet(upserts=[later]), model="fake", load_encoder=FakeEncoder)
    result = audit(store, "fake", fake_config())
    [cluster] = [c for c in result.clusters if c.shared_ids == [PAPER]]
    assert cluster.first_seen.id == "tom/2026-11-02#1"
    assert cluster.held_in_doc is not None and cluster.held_in_doc.id == SECTION.id
    head = audit_text(result).split("first  tom 2026-11-02", 1)[1].splitlines()
    assert head[1].strip() == "held by doc/inference §1.3 since 2026-11-01"


def test_audit_says_when_the_order_of_loading_decides_a_same_day_first(tmp_path: Path) -> None:
    """Audit keeps no time of day: of two writers' records of one day the one loaded first is
    first, so its line says the credit is a tie (probe 28: tom, signed 22:20 but loaded before
    vera, signed 09:10, was first)."""
    store = stored_in_order(tmp_path, "tom", "spark")
    ingest_records(store, ChangeSet(upserts=[briefing_item("ann", DAY + dt.timedelta(days=1))]), model="fake",
                   load_encoder=FakeEncoder)  # fmt: skip
    lines = audit_text(audit(store, "fake", fake_config())).splitlines()
    first = next(n for n, line in enumerate(lines) if line.startswith("   first  tom 2026-11-02"))
    assert lines[first + 1].strip() == "same day as spark/2026-11-02#1; order of loading decides"
    assert sum("order of loading" in line for line in lines) == 1  # ann's day after it is no tie


def test_no_tie_is_said_of_one_writers_own_copies_of_a_day(tmp_path: Path) -> None:
    store = stored_in_order(tmp_path, "tom")
    copy = briefing_item("tom").model_copy(update={"id": "tom/2026-11-02-copy#1"})
    ingest_records(store, ChangeSet(upserts=[copy], files={copy.id: "/in/tom-copy.md"}), model="fake",
                   load_encoder=FakeEncoder)  # fmt: skip
    text = audit_text(audit(store, "fake", fake_config()))
    assert "again  tom 2026-11-02" in text and "order of loading" not in text
