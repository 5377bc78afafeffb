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
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.clusters import grow_clusters
from kbsearch.dedupe.judging import Judged
from kbsearch.dedupe.roster import Roster
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


def test_a_first_seen_record_without_an_id_never_gathers_two_papers(tmp_path: Path) -> None:
    """The note without an id comes first; each paper is judged like it. The first paper
    joins its cluster, and the second, about another id, must start its own."""
    records = [
        record("bridge", "2026-09-01", "merges attention heads to shrink the KV cache"),
        record("a", "2026-09-02", "FoldKV merges attention heads to shrink the KV cache", arxiv_ids=["2609.00001"]),
        record("b", "2026-09-03", "RingKV merges attention heads to shrink the KV cache", arxiv_ids=["2609.00002"]),
    ]
    result = audit(build(tmp_path, records), "fake", fake_config())
    clusters = [members(c) for c in result.clusters]
    assert any("bridge" in c and len(c) > 1 for c in clusters), "a paper is the same item as the note"
    assert all(not {"a", "b"} <= c for c in clusters)


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


def test_learned_judgements_never_chain_a_cluster_past_its_first_seen_record() -> None:
    """A is like B and B like C, but C was never judged like A: C starts its own
    cluster, and D, judged like both A and C, joins the surer (growing by any
    member would chain all four, and thousands of records at scale)."""
    a, b, c, d = range(4)
    roster = Roster(
        rowids=np.arange(1, 5),
        present=np.ones(4, dtype=bool),
        rank=np.arange(4),
        briefing_key=np.arange(1, 5),
        text_key=np.arange(1, 5),
        marked_new=np.zeros(4, dtype=bool),
        chinese=np.zeros(4, dtype=bool),
    )
    learned = [(a, b, 0.9), (b, c, 0.9), (a, d, 0.6), (c, d, 0.95)]
    judged = Judged.of(4, [(e, later, False, p, f"same item {p}") for e, later, p in learned])
    assert sorted(sorted(cluster) for cluster in grow_clusters(roster, judged)) == [[a, b], [c, d]]
    # Chaining through members instead of first-seen records would merge them all.
    exact = Judged.of(4, [(e, later, True, p, "identical text") for e, later, p in learned])
    assert sorted(sorted(cluster) for cluster in grow_clusters(roster, exact)) == [[a, b, c, d]]


def test_a_text_without_an_id_identical_to_two_papers_never_joins_them(tmp_path: Path) -> None:
    """Exact evidence joins records before any score does: a note without an id
    whose text is word for word each paper's joins one of them, never both."""
    text = "merges attention heads to shrink the KV cache"
    records = [
        record("a", "2026-09-01", text, arxiv_ids=["2609.00001"]),
        record("b", "2026-09-02", text, arxiv_ids=["2609.00002"]),
        record("bridge", "2026-09-03", text),
    ]
    clusters = [members(c) for c in audit(build(tmp_path, records), "fake", fake_config()).clusters]
    assert any("bridge" in c and len(c) == 2 for c in clusters), clusters
    assert all(not {"a", "b"} <= c for c in clusters), clusters
