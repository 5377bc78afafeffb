"""One paper is one audit cluster, headed by an item, never by a living-doc section.

A new user's probe: a writer's briefing held two items about one paper (the
method, then new figures for it), and the living doc's KV-cache section,
dated earlier, listed that paper and another. The briefing's two items are
never compared (one briefing's increments are distinct items), so the
section joined each as its own star: two clusters about one arXiv id, both
headed "first" by the section, shown in the TUI as two identical rows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.clusters import grow_clusters
from kbsearch.dedupe.judging import Judged
from kbsearch.dedupe.roster import Roster
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.render import audit_text
from kbsearch.store import ChangeSet, Store
from kbsearch.tui.cluster_tree import cluster_label

PACKKV = "PackKV packs the KV cache into 2-bit groups with a per-group scale"
PACKKV_MORE = "PackKV new figures: a million-token context fits on one GPU with 2-bit groups"
SLICE = "SliceKV stores the KV cache as bit planes read on demand"


def test_two_items_of_one_briefing_about_one_paper_are_one_cluster_headed_by_the_first(tmp_path: Path) -> None:
    section = Record(
        id="doc/inference#§2.1",
        kind=Kind.doc_section,
        date="2026-10-01",  # type: ignore[arg-type]
        title="§2.1 KV cache",
        text="\n".join([PACKKV, SLICE]),
        arxiv_ids=["2609.30001", "2609.30002"],
    )
    first = Record(
        id="kim#1",
        kind=Kind.increment,
        date="2026-10-03",
        title="PackKV",
        text=PACKKV,  # type: ignore[arg-type]
        instance="kim",
        arxiv_ids=["2609.30001"],
    )
    more = Record(
        id="kim#2",
        kind=Kind.increment,
        date="2026-10-03",
        title="PackKV figures",
        text=PACKKV_MORE,  # type: ignore[arg-type]
        instance="kim",
        arxiv_ids=["2609.30001"],
    )
    store = Store.open(tmp_path / "idx", create=True)
    files = {"doc/inference#§2.1": "/src/inference.md", "kim#1": "/src/kim.md", "kim#2": "/src/kim.md"}
    ingest_records(
        store, ChangeSet(upserts=[section, first, more], files=files), model="fake", load_encoder=FakeEncoder
    )
    result = audit(store, "fake", fake_config())
    about = [c for c in result.clusters if c.shared_ids == ["2609.30001"]]
    assert len(about) == 1, [c.first_seen.id for c in about]
    [cluster] = about
    assert cluster.first_seen.id == "kim#1"  # an item heads it, though the section is dated earlier
    assert [m.id for m in cluster.repeats] == ["kim#2", "doc/inference#§2.1"]
    held = cluster.repeats[-1]
    assert held.role == "in doc" and held.same_as == "kim#1" and "2609.30001" in (held.reason or "")
    text = audit_text(result)
    assert "first  kim 2026-10-03" in text and "holds the item of kim#1" in text
    # The TUI's audit screen: one row, titled by the item, not two rows "§2.1 KV cache".
    assert cluster_label(1, cluster).plain.endswith("  PackKV")


def test_stars_about_one_paper_merge_and_a_section_is_listed_once() -> None:
    section, a, b = range(3)
    roster = Roster(
        rowids=np.arange(1, 4),
        present=np.ones(3, dtype=bool),
        rank=np.arange(3),
        briefing_key=np.array([1, 2, 2]),  # a and b: one briefing, never judged against each other
        text_key=np.arange(1, 4),
        marked_new=np.zeros(3, dtype=bool),
        chinese=np.zeros(3, dtype=bool),
        arxiv={
            section: frozenset({"2609.30001", "2609.30002"}),
            a: frozenset({"2609.30001"}),
            b: frozenset({"2609.30001"}),
        },
    )
    judged = Judged.of(3, [(section, a, True, 1.0, "lists"), (section, b, True, 1.0, "lists")])
    assert sorted(sorted(c) for c in grow_clusters(roster, judged)) == [[section, a, b]]
