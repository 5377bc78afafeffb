"""A filtered search scores each record as the unfiltered one does, the judge's lift too (probe 25:
``--section §1.3`` scored spark 11-03#1 1.466 where the unfiltered search gave it 1.624, with the
same dense and lexical parts). The judge's baseline of a language, and the short terms' weights,
are read over the candidates of the search without the filter (``search.reads``): a filter that
keeps only the weaker records no longer lowers the baseline they are read against."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from fake_encoder import FakeEncoder, ScriptedJudge
from kbsearch.ingest import Judge, ingest_records
from kbsearch.records import Kind, Record
from kbsearch.search import search
from kbsearch.search.judge_side import JudgeQuery
from kbsearch.store import ChangeSet, SearchFilter, Store

QUERY = "decoding throughput of the serving engine"
WORDS = ["paged", "sparse", "ring", "speculative", "chunked", "fused", "tiled", "batched"]
# (id, instance, kind, topic, date, the judge's cosine with the query): amy's records read close
# to the query, bo's further; a filter keeping bo's alone took their baseline from them alone.
ROWS = [
    (f"{who}/d{n}#1", who, kind, topic, dt.date(2026, 11, 1 + n), cosine)
    for n, (who, kind, topic, cosine) in enumerate(
        [
            ("amy", Kind.increment, "inference", 0.91),
            ("amy", Kind.paper_card, "inference", 0.89),
            ("amy", Kind.increment, "serving", 0.87),
            ("amy", Kind.paper_card, "serving", 0.85),
            ("bo", Kind.increment, "inference", 0.52),
            ("bo", Kind.paper_card, "inference", 0.48),
            ("bo", Kind.increment, "serving", 0.45),
            ("bo", Kind.paper_card, "serving", 0.41),
        ]
    )
]


@pytest.fixture
def judged(tmp_path: Path) -> tuple[Store, FakeEncoder, JudgeQuery]:
    records = [
        Record(
            id=rid,
            kind=kind,
            instance=who,
            topic=topic,
            date=date,
            title=f"{WORDS[n].capitalize()} decoding for the serving engine",
            text=f"A {WORDS[n]} kernel raises decoding throughput by {n + 2}0%.",
            position=n,
        )
        for n, (rid, who, kind, topic, date, _) in enumerate(ROWS)
    ]
    encoder = FakeEncoder()
    judge = ScriptedJudge({r.embed_text(): row[-1] for r, row in zip(records, ROWS, strict=True)})
    store = Store.open(tmp_path / "index", create=True)
    kept = Judge(judge.model_id, lambda: judge)
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder, judge=kept)
    return store, encoder, JudgeQuery("judge", judge.encode([QUERY])[0])


@pytest.mark.parametrize(
    "flt",
    [
        SearchFilter(instance="bo"),
        SearchFilter(kinds=[Kind.paper_card]),
        SearchFilter(topic="serving"),
        SearchFilter(since=dt.date(2026, 11, 5)),
        SearchFilter(until=dt.date(2026, 11, 4)),
        SearchFilter(instance="bo", topic="inference"),
    ],
    ids=repr,
)
def test_a_filter_changes_no_records_score(judged: tuple[Store, FakeEncoder, JudgeQuery], flt: SearchFilter) -> None:
    store, encoder, asked = judged
    everything = {hit.id: hit.score for hit in search(store, encoder, QUERY, 10, judge=asked).results}
    shown = {hit.id: hit.score for hit in search(store, encoder, QUERY, 10, flt, judge=asked).results}
    assert shown
    assert shown == pytest.approx({rid: everything[rid] for rid in shown}, abs=1e-4)
