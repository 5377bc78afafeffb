"""Every audit cluster member is there for a named reason, agreed with check's decision.

Probe 23 (the living-doc editor, four days of three writers): 3 of 7 clusters were wrong.
The agents doc's §2.1 listed Sable's arXiv id and named EchoVault, so "one paper is one
cluster" merged Sable's star (Sable and §2.1) into EchoVault's, where EchoVault's first
record sat with no ``same_as`` and no reason; the cluster was labelled with Sable's id, and
Pipit's with Kite's, joined to it at 0.54 ≥ 0.30 by the summary form where check read the
key points (0.01 < 0.45).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
from support.forms import forced_forms

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.audit_clusters import cluster_shown as _cluster
from kbsearch.dedupe.clusters import grow_clusters
from kbsearch.dedupe.judging import Judged
from kbsearch.dedupe.roster import Roster
from kbsearch.dedupe.same_day import Moved
from kbsearch.kb import KnowledgeBase
from kbsearch.models import ModelSpec
from kbsearch.records import Kind, Record

NO_NAMES = lambda record: frozenset()  # noqa: E731  (no section here names the head item by a coined name)


def _roster(n: int, arxiv: dict[int, frozenset[str]], docs: tuple[int, ...] = ()) -> Roster:
    roster = Roster(
        rowids=np.arange(1, n + 1),
        present=np.ones(n, dtype=bool),
        rank=np.arange(n),
        briefing_key=np.arange(1, n + 1),
        text_key=np.arange(1, n + 1),
        marked_new=np.zeros(n, dtype=bool),
        chinese=np.zeros(n, dtype=bool),
        arxiv=arxiv,
    )
    roster.docs = np.isin(np.arange(n), list(docs))
    return roster


def _records(roster: Roster, kinds: dict[int, Kind]) -> dict[int, Record]:
    day = dt.date(2026, 10, 1)
    return {
        int(roster.rowids[r]): Record(
            id=f"r{r}",
            kind=kinds.get(r, Kind.increment),
            date=day + dt.timedelta(days=r),
            title=f"record {r}",
            text=f"record {r}",
            instance=None if kinds.get(r) is Kind.doc_section else "tom",
        )
        for r in range(len(roster))
    }


def test_a_section_listing_an_earlier_items_id_never_merges_its_cluster_into_another() -> None:
    sable, echo, echo_again, section = range(4)
    roster = _roster(4, {sable: frozenset({"2609.31240"}), section: frozenset({"2609.31240"})}, docs=(section,))
    judged = Judged.of(
        4,
        [
            (echo, echo_again, False, 0.9, "same item 0.90 ≥ 0.30"),
            (sable, section, True, 1.0, "the section lists arXiv 2609.31240"),
            (echo, section, True, 1.0, "the section names EchoVault"),
        ],
        held=[0, 2, 2],
    )
    clusters = grow_clusters(roster, judged)
    assert sorted(sorted(c) for c in clusters) == [[sable, section], [echo, echo_again, section]]
    [told] = [c for c in clusters if echo in c]
    shown = _cluster(roster, judged, told, _records(roster, {section: Kind.doc_section}), NO_NAMES, Moved())
    assert shown.first_seen.id == f"r{echo}" and shown.shared_ids == []  # not Sable's id, the section's
    assert all(m.same_as and m.reason for m in shown.repeats)


def test_a_cluster_is_labelled_by_an_id_its_items_share_not_by_one_members() -> None:
    pipit, pipit_again, kite = range(3)
    roster = _roster(3, {kite: frozenset({"2610.01890"})})
    judged = Judged.of(3, [(pipit, pipit_again, False, 1.0, "same"), (pipit, kite, False, 0.6, "same")])
    [group] = grow_clusters(roster, judged)
    assert _cluster(roster, judged, group, _records(roster, {}), NO_NAMES, Moved()).shared_ids == []
    paper, again = range(2)
    roster = _roster(2, {paper: frozenset({"2609.31001"}), again: frozenset({"2609.31001"})})
    judged = Judged.of(2, [(paper, again, True, 1.0, "both are about arXiv 2609.31001")])
    [group] = grow_clusters(roster, judged)
    assert _cluster(roster, judged, group, _records(roster, {}), NO_NAMES, Moved()).shared_ids == ["2609.31001"]


def test_every_member_names_a_record_and_a_reason_though_it_joined_through_a_later_one() -> None:
    # first and later share a text (exact); early and later an arXiv id: one exact group,
    # where ``early`` was judged against no earlier member.
    first, early, later = range(3)
    roster = _roster(3, {early: frozenset({"2610.00001"}), later: frozenset({"2610.00001"})})
    judged = Judged.of(
        3, [(first, later, True, 1.0, "identical text"), (early, later, True, 1.0, "both are about arXiv 2610.00001")]
    )
    [group] = grow_clusters(roster, judged)
    shown = _cluster(roster, judged, group, _records(roster, {}), NO_NAMES, Moved())
    [mid] = [m for m in shown.repeats if m.id == f"r{early}"]
    assert mid.same_as == f"r{later}" and mid.reason == "both are about arXiv 2610.00001"


def test_audit_joins_no_pair_whose_key_points_check_reads_as_two_items(tmp_path: Path) -> None:
    """The summary form says "same item", the key-point form (check's, for an item with key
    points) says two items: audit reads the pair again by its key points and does not join it."""
    rows = [
        {"id": "a", "title": "Marlin FP8 kernels", "text": "Marlin FP8 kernels merged into vLLM for Ada GPUs",
         "date": "2026-10-01", "instance": "tom"},
        {"id": "b", "title": "Marlin FP8 on Ada", "text": "FP8 Marlin kernels for Ada GPUs in vLLM, again",
         "date": "2026-10-02", "instance": "jay", "claims": ["FP8 weights on Ada", "merged upstream"]},
    ]  # fmt: skip
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    spec = ModelSpec(name="fake", source="python:fake_encoder:make")
    with KnowledgeBase(tmp_path / "idx", spec, create=True, encoder=FakeEncoder()) as kb:
        kb.ingest([source])
        apart = audit(kb.store, "fake", forced_forms(summary_same=True))
        same = audit(kb.store, "fake", forced_forms(summary_same=False))
    assert apart.clusters == []
    [cluster] = same.clusters
    assert [m.id for m in cluster.repeats] == ["b"] and cluster.repeats[0].same_as == "a"
