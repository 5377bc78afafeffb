"""audit's per-writer summary (``AuditResult.by_instance``) and its ``--across`` view.

A lead reviewing a week asks of each writer: how many items, how many of them
repeat an earlier record, how many of those repeat the writer's own earlier
record, and how many were claimed new but seen before (probe 26). The numbers
are read off the clusters and flags audit shows, for the records the filter chose.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from kbsearch.records import Kind

if TYPE_CHECKING:
    from kbsearch.dedupe.audit_results import AuditResult, Cluster, ClusterMember
    from kbsearch.dedupe.results import Flag


class InstanceSummary(BaseModel):
    """One writer's line of the audit: counts of the records the filter chose."""

    instance: str
    items: int = Field(description="Its records chosen (living-doc sections have no writer).")
    repeats: int = Field(description="Of them, records in a cluster after its first: the same item as an earlier one.")
    own_repeats: int = Field(description="Of the repeats, those the same item as this writer's own earlier record.")
    claimed_new_seen_before: int = Field(description="Its records marked new that a record had before.")


def by_instance(
    items: dict[str, int], clusters: Sequence[Cluster], flags: Sequence[Flag], chosen: Callable[[ClusterMember], bool]
) -> list[InstanceSummary]:
    """Per instance of ``items`` (its chosen records), by name: repeats among the chosen
    cluster members, and its "claimed new but seen before" flags (of a flagged record)."""
    repeats: dict[str, int] = {}
    own: dict[str, int] = {}
    for cluster in clusters:
        writer = {m.id: m.instance for m in [cluster.first_seen, *cluster.repeats]}
        for member in cluster.repeats:
            if member.kind is Kind.doc_section or not member.instance or not chosen(member):
                continue
            repeats[member.instance] = repeats.get(member.instance, 0) + 1
            if member.same_as and writer.get(member.same_as) == member.instance:
                own[member.instance] = own.get(member.instance, 0) + 1
    flagged: dict[str, int] = {}
    for flag in flags:
        if flag.instance:
            flagged[flag.instance] = flagged.get(flag.instance, 0) + 1
    return [
        InstanceSummary(
            instance=name,
            items=items[name],
            repeats=repeats.get(name, 0),
            own_repeats=own.get(name, 0),
            claimed_new_seen_before=flagged.get(name, 0),
        )
        for name in sorted(items, key=str.lower)
        if items[name] or repeats.get(name) or flagged.get(name)
    ]


def across(result: AuditResult) -> AuditResult:
    """``audit --across``: only the clusters holding two or more instances (an increment and its
    own writer's paper card of the same paper are half a week's clusters, and hide the repeats
    across writers); how many were left out is kept (``one_instance_left_out``)."""
    kept = [c for c in result.clusters if len(c.instances) >= 2]
    return result.model_copy(update={"clusters": kept, "one_instance_left_out": len(result.clusters) - len(kept)})
