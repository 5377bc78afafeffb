"""audit never merges different papers (issue 13, item 1), with the fake encoder.

A living-document section about several papers repeats each of them, but it
must not chain them into one cluster, and neither may a record without an id
that resembles records about two different ids. A "claimed new" flag names a
record the flagged one was itself judged the same item as.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import _grow_clusters, audit
from kbsearch.dedupe.results import Match, Rule
from kbsearch.dedupe.rules import Embedded
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store

C2KV = "C²KV compressible composable KV cache reuse for retrieval"
INTERNET = "An Internet for the KV Cache shared across agents"
COMPACTION = "Practical online KV cache compaction during decoding"


def record(rid: str, day: str, text: str, **extra: object) -> Record:
    return Record(id=rid, kind=Kind.increment, date=day, title="", text=text, **extra)  # type: ignore[arg-type]


def build(tmp_path: Path, records: list[Record]) -> Store:
    store = Store.open(tmp_path / "idx", create=True)
    files = {r.id: f"/src/{r.id}.md" for r in records}
    encoder = FakeEncoder()
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=lambda: encoder)
    return store


def members(cluster) -> set[str]:  # type: ignore[no-untyped-def]
    return {cluster.first_seen.id, *(m.id for m in cluster.repeats)}


@pytest.fixture
def papers() -> list[Record]:
    return [
        record("jay-c2kv", "2026-08-26", C2KV, instance="jay", arxiv_ids=["2607.17715"]),
        record("card-c2kv", "2026-08-27", C2KV + " (card)", arxiv_ids=["2607.17715"]),
        record("jay-internet", "2026-08-26", INTERNET, instance="jay", arxiv_ids=["2608.01526"]),
        record("card-internet", "2026-08-27", INTERNET + " (card)", arxiv_ids=["2608.01526"]),
        record("card-compaction", "2026-08-27", COMPACTION, arxiv_ids=["2608.00902"]),
        record(
            "tom-compaction",
            "2026-09-19",
            COMPACTION + ", again",
            instance="tom",
            arxiv_ids=["2608.00902"],
            anchor="首次锚入",
        ),
        Record(
            id="doc-3.3",
            kind=Kind.doc_section,
            date="2026-09-18",
            title="§3.3 KV cache reuse",
            text="\n".join([C2KV, INTERNET, COMPACTION]),
            arxiv_ids=["2607.17715", "2608.01526", "2608.00902"],
        ),
    ]


def test_a_section_about_several_papers_joins_each_cluster_but_bridges_none(
    tmp_path: Path, papers: list[Record]
) -> None:
    result = audit(build(tmp_path, papers), "fake", fake_config())
    clusters = [members(c) for c in result.clusters]
    assert {"jay-c2kv", "card-c2kv", "doc-3.3"} in clusters
    assert {"jay-internet", "card-internet", "doc-3.3"} in clusters
    assert {"card-compaction", "tom-compaction", "doc-3.3"} in clusters
    for cluster in result.clusters:
        ids = {i for rid in members(cluster) - {"doc-3.3"} for i in _ids(papers, rid)}
        assert len(ids) == 1, members(cluster)
        section = next(m for m in cluster.repeats if m.id == "doc-3.3")
        assert section.same_as in members(cluster) - {"doc-3.3"}  # the match that put it here, not another cluster's


def _ids(papers: list[Record], rid: str) -> list[str]:
    return next(p.arxiv_ids for p in papers if p.id == rid)


def test_a_record_without_an_id_never_chains_two_papers(tmp_path: Path) -> None:
    records = [
        record("a", "2026-09-01", "FoldKV merges attention heads to shrink the KV cache", arxiv_ids=["2609.00001"]),
        record("b", "2026-09-02", "RingKV merges attention heads to shrink the KV cache", arxiv_ids=["2609.00002"]),
        record("bridge", "2026-09-03", "merges attention heads to shrink the KV cache"),
    ]
    result = audit(build(tmp_path, records), "fake", fake_config())
    assert result.clusters, "the bridge is the same item as one of the papers"
    for cluster in result.clusters:
        assert not {"a", "b"} <= members(cluster)


def test_a_claimed_new_flag_names_a_record_judged_the_same_item(tmp_path: Path, papers: list[Record]) -> None:
    result = audit(build(tmp_path, papers), "fake", fake_config())
    [flag] = [f for f in result.claimed_new_seen_before if "tom-compaction" in f.message]
    assert flag.first_seen_id == "card-compaction"
    assert all(f.first_seen_id not in {"jay-c2kv", "jay-internet"} for f in result.claimed_new_seen_before)
    compaction = next(c for c in result.clusters if "tom-compaction" in members(c))
    again = next(m for m in compaction.repeats if m.id == "tom-compaction")
    assert again.same_as == "card-compaction" and "2608.00902" in (again.reason or "")


def test_a_record_is_never_learned_to_be_two_items_of_one_briefing(tmp_path: Path) -> None:
    """One briefing's increments are distinct items: a later note that resembles
    two of them joins the surer one's cluster, never both (which would chain them)."""
    bench = record("tom-bench", "2026-08-26", "vLLM and SGLang serving engines measured: TTFT and throughput")
    tgi = record("tom-tgi", "2026-08-26", "vLLM and SGLang serving engines remain as TGI enters maintenance")
    later = record("stephen-tgi", "2026-08-27", "vLLM and SGLang serving engines remain as TGI enters maintenance mode")
    store = Store.open(tmp_path / "idx", create=True)
    files = {"tom-bench": "/src/tom.md", "tom-tgi": "/src/tom.md", "stephen-tgi": "/src/stephen.md"}
    changes = ChangeSet(upserts=[bench, tgi, later], files=files)
    ingest_records(store, changes, model="fake", load_encoder=FakeEncoder)
    clusters = [members(c) for c in audit(store, "fake", fake_config()).clusters]
    assert {"tom-tgi", "stephen-tgi"} in clusters
    assert all(not {"tom-bench", "tom-tgi"} <= c for c in clusters)


def _learned(known: Record, probability: float) -> Match:
    return Match(
        id=known.id,
        kind=known.kind,
        title=known.title,
        instance=known.instance,
        date=known.date,
        score=probability,
        lexical=0.0,
        probability=probability,
        threshold=0.5,
        same_item=True,
        rule=Rule.learned,
    )


def test_learned_judgements_never_chain_a_cluster_past_its_first_seen_record() -> None:
    """A is like B and B like C, but C was never judged like A: C starts its own
    cluster, and D, judged like both A and C, joins the surer (growing by any
    member would chain all four, and thousands of records at scale)."""
    days = {"a": "2026-09-01", "b": "2026-09-02", "c": "2026-09-03", "d": "2026-09-04"}
    records = {n: record(n, day, f"note {n}") for n, day in days.items()}
    embedded = {n: Embedded.whole_only(r, np.ones(4, dtype=np.float32)) for n, r in enumerate(records.values())}
    row = {r.id: n for n, r in enumerate(records.values())}
    judged = {
        (row["a"], row["b"]): _learned(records["a"], 0.9),
        (row["b"], row["c"]): _learned(records["b"], 0.9),
        (row["a"], row["d"]): _learned(records["a"], 0.6),
        (row["c"], row["d"]): _learned(records["c"], 0.95),
    }
    clusters = sorted(
        sorted(embedded[r].record.id for r in members)
        for members in _grow_clusters(embedded, judged, _by_later(judged))
    )
    assert clusters == [["a", "b"], ["c", "d"]]


def _by_later(judged: dict[tuple[int, int], Match]) -> dict[int, list[tuple[int, Match]]]:
    found: dict[int, list[tuple[int, Match]]] = {}
    for (earlier, later), match in judged.items():
        found.setdefault(later, []).append((earlier, match))
    return found
