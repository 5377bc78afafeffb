"""A filtered audit (``--since``, ``--instance``) reports on fewer records, but compares them
as the whole audit does: each pair is judged against the neighbourhood it has in the whole
index, as ``check`` and ``explain`` judge it, and a cluster keeps its members from outside
the filter."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.scorer import Scorer
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, SearchFilter, Store

# Same item when a record stands out from its nearest records (``relative``), as the
# shipped forms read it: two draft-head notes of a week stand out from each other alone.
STANDS_OUT = Scorer(
    features=["relative"],
    weights=[60.0],
    means=[0.0],
    scales=[1.0],
    bias=-3.0,
    threshold=0.5,
    fitted_on="hand-set for a test",
    score="none",
)
EARLIER = [
    ("old1", "2026-08-03", "Medusa draft heads predict four tokens per decoding step"),
    ("old2", "2026-08-05", "Medusa draft heads predict several tokens per decoding step"),
    ("old3", "2026-08-07", "Draft heads in Medusa predict four tokens each decoding step"),
]
WEEK = [
    ("new1", "2026-09-02", "Medusa draft heads predict four tokens per step"),
    ("new2", "2026-09-04", "Medusa heads predict four draft tokens per decoding step"),
    ("far1", "2026-09-03", "Kubernetes DRA hands out MIG slices to inference pods"),
    ("far2", "2026-09-05", "Cached input tokens are billed at a tenth of the price"),
]


def test_a_filter_does_not_change_how_a_pair_is_judged(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    rows = EARLIER + WEEK
    records = [Record(id=i, kind=Kind.increment, date=dt.date.fromisoformat(d), text=t) for i, d, t in rows]
    files = {r.id: f"/src/{r.id}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=lambda: encoder)
    config = fake_config().model_copy(update={"same_item": STANDS_OUT, "audit_neighbours": 3, "neighbourhood": 3})

    def pairs(flt: SearchFilter | None) -> set[frozenset[str]]:
        found = audit(store, "fake", config, flt)
        return {frozenset({c.first_seen.id, r.id}) for c in found.clusters for r in c.repeats}

    week = SearchFilter(since=dt.date(2026, 9, 1))
    whole, chosen = audit(store, "fake", config), audit(store, "fake", config, week)
    assert chosen.records == len(WEEK)
    assert frozenset({"new1", "new2"}) not in pairs(None)  # among the August notes neither stands out
    assert frozenset({"new1", "new2"}) not in pairs(week)
    in_week = {i for i, _, _ in WEEK}
    assert chosen.clusters == [c for c in whole.clusters if in_week & {c.first_seen.id, *(r.id for r in c.repeats)}]


# spark tells of KEDA autoscaling in August; nova tells it again in September and marks it new.
SAID_AGAIN = [
    ("spark-keda", "spark", "2026-08-28", None, "Prefix cache aware autoscaling for vLLM with KEDA on queue depth"),
    ("jay-dra", "jay", "2026-08-29", None, "Kubernetes DRA hands out MIG slices to inference pods"),
    ("jay-price", "jay", "2026-09-02", None, "Cached input tokens are billed at a tenth of the price"),
    ("nova-keda", "nova", "2026-09-25", "首次锚入", "Autoscaling vLLM with KEDA on queue depth and prefix cache hits"),
    ("nova-uv", "nova", "2026-09-26", None, "uv pins CUDA wheels per platform with an index url"),
]


def said_again(tmp_path: Path, encoder: FakeEncoder) -> Store:
    store = Store.open(tmp_path / "idx", create=True)
    records = [
        Record(id=i, kind=Kind.increment, instance=who, date=dt.date.fromisoformat(d), anchor=anchor, text=t)
        for i, who, d, anchor, t in SAID_AGAIN
    ]
    files = {r.id: f"/src/{r.id}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=lambda: encoder)
    return store


@pytest.mark.parametrize(
    "flt", [SearchFilter(since=dt.date(2026, 9, 20)), SearchFilter(instance="nova")], ids=["since", "instance"]
)
def test_a_filter_chooses_what_is_reported_not_what_is_compared(
    tmp_path: Path, encoder: FakeEncoder, flt: SearchFilter
) -> None:
    """nova's repeat of spark's August item, marked new, is a cluster of both and a flag in a
    filtered audit as in the whole one: spark's record, outside the filter, says who was first."""
    store = said_again(tmp_path, encoder)
    whole, chosen = audit(store, "fake", fake_config()), audit(store, "fake", fake_config(), flt)
    [cluster] = [c for c in whole.clusters if c.first_seen.id == "spark-keda"]
    assert [r.id for r in cluster.repeats] == ["nova-keda"] and cluster.repeats[0].same_as == "spark-keda"
    assert chosen.clusters == [cluster]
    assert chosen.records == 2 and chosen.compared == whole.records == len(SAID_AGAIN)
    [flag] = [f.message for f in chosen.claimed_new_seen_before]
    assert flag.startswith("nova-keda (nova, 2026-09-25) is marked '首次锚入' but spark had it on 2026-08-28")
    assert flag in [f.message for f in whole.claimed_new_seen_before]


def test_a_window_needs_an_item_of_its_days_not_a_doc_section_dated_by_the_docs_update(tmp_path: Path) -> None:
    """Probe 16: ``audit --since 2026-10-31`` chose 108 records, 106 of them sections of a living
    doc updated that day, and showed 30 clusters each reached only through such a section (``in
    doc``), none with an item of that day. A section is dated by the doc's last update, not by
    when it was written: a cluster is in the window when one of its items is."""
    store = Store.open(tmp_path / "idx", create=True)
    paper = "Medusa draft heads predict four tokens per decoding step"
    medusa, dra = {"arxiv_ids": ["2609.11111"]}, {"arxiv_ids": ["2609.22222"]}
    records = [
        Record(id="jay#1", kind=Kind.increment, instance="jay", date=dt.date(2026, 9, 2), text=paper, **medusa),
        Record(id="tom#1", kind=Kind.increment, instance="tom", date=dt.date(2026, 9, 9), text=paper + " again",
               **medusa),
        Record(id="doc/inference#§1.2", kind=Kind.doc_section, date=dt.date(2026, 10, 31),
               title="§1.2 Decoding", text="- 2609.11111 Medusa draft heads", **medusa),
        Record(id="nova#1", kind=Kind.increment, instance="nova", date=dt.date(2026, 10, 31),
               text="Kubernetes DRA hands out MIG slices to inference pods", **dra),
        Record(id="lin#1", kind=Kind.increment, instance="lin", date=dt.date(2026, 9, 3),
               text="Kubernetes DRA hands out MIG slices to pods", **dra),
    ]  # fmt: skip
    files = {r.id: f"/src/{r.id}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=FakeEncoder)
    whole = audit(store, "fake", fake_config())
    assert {c.first_seen.id for c in whole.clusters} == {"jay#1", "lin#1"}
    window = audit(store, "fake", fake_config(), SearchFilter(since=dt.date(2026, 10, 31)))
    assert [c.first_seen.id for c in window.clusters] == ["lin#1"]
