"""Probe 26, the lead reviewing a week with ``audit``: each flag names the record it flags in
its own fields (not only inside its message); audit counts per writer (``by_instance``); a
repeated ``--instance`` is refused, not the last kept; a cluster with no arXiv id is headed by
its first title; ``--across`` keeps the clusters of two or more instances; a cut title ends
in "…"; and the TUI shows the "held by" and "same item as" lines the CLI shows."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from conftest import fake_config
from textual.app import App, ComposeResult
from tui_support import drive

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.audit_results import AuditResult, Cluster, ClusterMember
from kbsearch.dedupe.audit_summary import InstanceSummary, across
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.render import audit_text
from kbsearch.store import ChangeSet, SearchFilter, Store
from kbsearch.tui.cluster_tree import ClusterTree

PAPER = {"arxiv_ids": ["2609.11111"]}
WEEK = [  # id, writer, day, anchor, text, ids
    ("tom#1", "tom", 1, None, "Medusa draft heads predict four tokens per decoding step", PAPER),
    ("tom#2", "tom", 3, "本次新增", "Medusa draft heads: four tokens a step, now with tree attention", PAPER),
    ("jay#1", "jay", 4, "首次锚入", "Medusa predicts four draft tokens per step with extra heads", PAPER),
    ("jay#2", "jay", 5, None, "Kubernetes DRA hands out MIG slices to inference pods", {}),
]


def week(tmp_path: Path) -> Store:
    store = Store.open(tmp_path / "idx", create=True)
    records = [
        Record(id=i, kind=Kind.increment, instance=w, date=dt.date(2026, 9, d), anchor=a, text=t, **ids)  # type: ignore[arg-type]
        for i, w, d, a, t, ids in WEEK
    ]
    files = {r.id: f"/src/{r.id.replace('#', '-')}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=FakeEncoder)
    return store


def test_a_flag_names_its_record_and_audit_counts_per_writer(tmp_path: Path) -> None:
    store = week(tmp_path)
    result = audit(store, "fake", fake_config())
    flagged = {f.id: (f.instance, f.date) for f in result.claimed_new_seen_before}
    assert flagged == {"tom#2": ("tom", dt.date(2026, 9, 3)), "jay#1": ("jay", dt.date(2026, 9, 4))}
    assert result.by_instance == [
        InstanceSummary(instance="jay", items=2, repeats=1, own_repeats=0, claimed_new_seen_before=1),
        InstanceSummary(instance="tom", items=2, repeats=1, own_repeats=1, claimed_new_seen_before=1),
    ]
    text = audit_text(result)
    assert "per instance:" in text and "   tom           2        1       1" in text
    # A filter counts the records it chose: jay's alone, and from the 4th on nothing of tom's.
    assert [s.instance for s in audit(store, "fake", fake_config(), SearchFilter(instance="JAY")).by_instance] == [
        "jay"
    ]
    later = audit(store, "fake", fake_config(), SearchFilter(since=dt.date(2026, 9, 4))).by_instance
    assert later == [InstanceSummary(instance="jay", items=2, repeats=1, own_repeats=0, claimed_new_seen_before=1)]


def test_instance_given_twice_is_refused_not_the_last_kept(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("audit", "--instance", "tom", "--instance", "jay", "--index", "nowhere")
    assert code == 2 and out == ""
    assert "argument --instance: given twice ('tom', then 'jay'); it takes one value" in err


def member(rid: str, instance: str | None, title: str, same_as: str | None = None) -> ClusterMember:
    kind = Kind.doc_section if rid.startswith("doc/") else Kind.increment
    return ClusterMember(
        id=rid, kind=kind, title=title, instance=instance, date=dt.date(2026, 9, 2), same_as=same_as, reason="ids"
    )


LONG = "vLLM v0.40 released: V1 engine only, async scheduling on by default, and more"
ACROSS = Cluster(
    size=3,
    first_seen=member("tom#1", "tom", LONG),
    repeats=[member("jay#1", "jay", LONG, "tom#1"), member("doc/x#§1", None, "§1 Serving", "tom#1")],
    held_in_doc=member("doc/x#§1", None, "§1 Serving", "tom#1"),
    instances=["jay", "tom"],
)
OWN = Cluster(
    size=2,
    first_seen=member("tom#2", "tom", "PackKV"),
    repeats=[member("card/1", None, "PackKV: 2-bit KV", "tom#2")],
    shared_ids=["2609.30001"],
    instances=["tom"],
)


def test_a_cluster_without_an_id_is_headed_by_its_title_and_across_keeps_those_of_two_writers() -> None:
    result = AuditResult(model="m", records=5, compared=5, clusters=[ACROSS, OWN], claimed_new_seen_before=[])
    lines = audit_text(result).splitlines()
    assert "#1  3 records, 2 instances  vLLM v0.40 released: V1 engine only, async scheduling on by…" in lines
    assert "#2  2 records, 1 instance  arXiv 2609.30001" in lines
    repeat = next(line for line in lines if line.startswith("   again") and "jay#1" in line)
    assert repeat.endswith("  vLLM v0.40 released: V1 engine only, async scheduling on by…")
    shown = audit_text(across(result)).splitlines()
    assert (
        shown[0] == "1 cluster of the same item across instances (1 of one instance left out: --across) among 5 records"
    )
    assert not any("tom#2" in line for line in shown)


class Trees(App[None]):
    def compose(self) -> ComposeResult:
        yield ClusterTree(id="clusters")


@drive
async def test_the_tui_shows_the_held_by_and_same_item_lines_of_the_cli() -> None:
    result = AuditResult(model="m", records=3, compared=3, clusters=[ACROSS], claimed_new_seen_before=[])
    app = Trees()
    async with app.run_test():
        tree = app.query_one(ClusterTree)
        tree.show(result)
        rows = [str(node.label).strip() for node in tree.root.children[0].children]
    assert "held by doc/x §1 since 2026-09-02" in rows
    assert rows.count("same item as tom#1: ids") == 1 and "holds the item of tom#1: ids" in rows
    cli = [line.strip() for line in audit_text(result).splitlines()]
    assert [r for r in rows if r in cli] == [r for r in cli if r in rows and not r.startswith(("first", "again"))]
