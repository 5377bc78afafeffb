"""audit's text lines. A living-doc section that holds a cluster's item is listed as "in doc",
not "again": a section holding several papers sat in each of their clusters as if it repeated
each one. A filtered audit's first line says how many records it chose and how many it compared."""

from __future__ import annotations

import datetime as dt

from kbsearch.dedupe.audit_results import AuditResult, Cluster, ClusterMember
from kbsearch.records import Kind
from kbsearch.render import audit_text


def member(rid: str, kind: Kind, instance: str | None, day: int | None) -> ClusterMember:
    date = dt.date(2026, 9, day) if day else None
    return ClusterMember(id=rid, kind=kind, title=rid, instance=instance, date=date, same_as="jay#1", reason="ids")


def test_a_doc_section_in_a_cluster_is_listed_in_doc_and_a_repeat_again() -> None:
    cluster = Cluster(
        size=3,
        first_seen=member("jay#1", Kind.increment, "jay", 1),
        repeats=[member("spark#1", Kind.increment, "spark", 2), member("doc#s3", Kind.doc_section, None, None)],
    )
    lines = audit_text(
        AuditResult(model="m", records=3, compared=3, clusters=[cluster], claimed_new_seen_before=[])
    ).splitlines()
    assert next(line for line in lines if "spark#1" in line).lstrip().startswith("again")
    assert next(line for line in lines if "doc#s3" in line).lstrip().startswith("in doc")
    # A section is never the same item as the increment it holds (README, issue 25): it holds it.
    reasons = [line.strip() for line in lines if line.strip().endswith(": ids")]
    assert reasons == ["same item as jay#1: ids", "holds the item of jay#1: ids"]


def test_a_filtered_audit_says_how_many_records_it_chose_and_compared() -> None:
    cluster = Cluster(
        size=2,
        first_seen=member("jay#1", Kind.increment, "jay", 1),
        repeats=[member("nova#1", Kind.increment, "nova", 25)],
    )
    whole = AuditResult(model="m", records=47, compared=47, clusters=[cluster], claimed_new_seen_before=[])
    chosen = whole.model_copy(update={"records": 1})
    assert audit_text(whole).splitlines()[0] == "1 cluster of the same item among 47 records"
    assert (
        audit_text(chosen).splitlines()[0]
        == "1 cluster of the same item holding any of the 1 record chosen (47 compared)"
    )
