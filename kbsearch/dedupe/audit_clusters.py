"""The clusters as ``audit`` shows them: each headed by its earliest item, each
repeat naming the record it was judged the same item as, and why.

A cluster's first-seen record is its earliest item; each repeat names the earliest
record of the cluster it was itself judged the same item as (``clusters`` grew the
stars from those judgements), and a living-doc section after the items, dated by
when its text first held the item (``section_since``). The records are read from
the store a chunk at a time, only for the clusters shown.
"""

from __future__ import annotations

from kbsearch.dedupe.audit_results import Cluster, ClusterMember
from kbsearch.dedupe.judging import Judged
from kbsearch.dedupe.roster import Roster
from kbsearch.dedupe.same_day import Moved, first_of_day
from kbsearch.dedupe.section_since import Named, first_holding
from kbsearch.records import Kind, Record
from kbsearch.store import Store


def told_again(cluster: Cluster) -> bool:
    """Whether ``cluster`` is an item told again: two records that are not living-doc
    sections. One item with the sections that hold it is no repeat (probe 10 counted
    "TreeShift" with only ``doc/inference#§1.5`` among its clusters of the same item);
    a cluster of sections alone is kept, as a doc that repeats itself is."""
    members = [cluster.first_seen, *cluster.repeats]
    items = sum(m.kind is not Kind.doc_section for m in members)
    return items != 1


def clusters_shown(
    store: Store, roster: Roster, judged: Judged, groups: list[list[int]], chunk: int, named: Named, moved: Moved
) -> list[Cluster]:
    """The clusters as shown, their records read about ``chunk`` at a time."""
    out: list[Cluster] = []
    start = size = 0
    for end, group in enumerate(groups, 1):
        size += len(group)
        if size >= chunk or end == len(groups):
            batch = groups[start:end]
            records = store.by_rowids(int(roster.rowids[r]) for g in batch for r in g)
            out += [cluster_shown(roster, judged, g, records, named, moved) for g in batch]
            start, size = end, 0
    return out


def cluster_shown(
    roster: Roster, judged: Judged, group: list[int], records: dict[int, Record], named: Named, moved: Moved
) -> Cluster:
    """A cluster as shown: headed by its earliest item, its living-doc sections
    after the items. A section holds the item but is never the item (README, How
    check decides), so it heads a cluster only of sections; one whose first text
    already named the head item is in doc since its first day (``section_since``)."""
    ranked = sorted(group, key=lambda r: int(roster.rank[r]))
    record = {r: records[int(roster.rowids[r])] for r in ranked}
    sections = [r for r in ranked if record[r].kind is Kind.doc_section]
    loaded = [r for r in ranked if record[r].kind is not Kind.doc_section]
    items, tie = first_of_day(loaded, record)
    moved.add(loaded, items, lambda r: int(roster.rank[r]))
    members = items + sections
    head = record[members[0]]
    day = {r: record[r].date for r in members}
    if items and sections:
        day |= {r: d for r in sections if (d := first_holding(head, record[r], named(head))) is not None}
    repeats = []
    for r in members[1:]:
        seen = _earliest_direct(roster, judged, r, set(items)) or _earliest_direct(roster, judged, r, set(group))
        if seen is None and r in sections:
            seen = _earliest_holding(judged, r, items)
        seen = seen or _joined_by(roster, judged, r, members)
        member = ClusterMember.of(record[r], None if seen is None else (record[seen[0]], seen[1]))
        repeats.append(member.model_copy(update={"date": day[r]}) if day[r] != record[r].date else member)
    earlier = [r for r in sections if r != members[0] and head.date and (day[r] or head.date) < head.date]
    held = min(earlier, key=lambda r: (day[r], record[r].id), default=None)
    return Cluster(
        size=len(members),
        first_seen=ClusterMember.of(head, None),
        repeats=repeats,
        held_in_doc=repeats[members.index(held) - 1] if held is not None else None,
        shared_ids=_shared_ids(roster, items, members),
        instances=sorted({rec.instance for rec in record.values() if rec.instance}),
        same_day=tie,
    )


def _shared_ids(roster: Roster, items: list[int], members: list[int]) -> list[str]:
    """The cluster's label: the arXiv ids of its first-seen item that every item about a single
    id holds and another member (an item, or a section holding it) lists too. One member's id
    is no label (probe 23: Pipit's cluster was labelled with the id of Kite, joined to it; and
    an earlier item's id that a section lists labelled EchoVault's cluster)."""
    if not items:
        return []
    single = [roster.ids_of(r) for r in items if roster.ids_of(r) and not roster.is_hub(r)]
    common = frozenset.intersection(*single) & roster.ids_of(items[0]) if single else frozenset()
    return sorted(i for i in common if sum(i in roster.ids_of(r) for r in members) > 1)


def _joined_by(roster: Roster, judged: Judged, row: int, members: list[int]) -> tuple[int, str] | None:
    """Why ``row`` is in the cluster when it was judged against no earlier member: a later
    member judged the same item as it (one of an exact group joined through another), else
    the earliest member about one of its arXiv ids (one paper is one cluster: two items of
    one briefing are never compared). Every member names a record and a reason."""
    for other in members:
        for at in judged.before(other):
            if other != row and int(judged.earlier[at]) == row:
                return other, judged.reasons[at]
    own = roster.ids_of(row)
    for other in members:
        if other != row and own & roster.ids_of(other):
            return other, f"both are about arXiv {', '.join(sorted(own & roster.ids_of(other)))}"
    return None


def _earliest_holding(judged: Judged, section: int, items: list[int]) -> tuple[int, str] | None:
    """The earliest of ``items`` (in first-seen order) judged against ``section`` as
    the earlier record, and why: a section dated before the items holds their item."""
    for item in items:
        for at in judged.before(item):
            if int(judged.earlier[at]) == section:
                return item, judged.reasons[at]
    return None


def _earliest_direct(
    roster: Roster, judged: Judged, row: int, cluster: set[int] | None = None
) -> tuple[int, str] | None:
    """The earliest record (of ``cluster``, if given) this one was itself
    judged the same item as, and why: a section about several papers sits in
    several clusters, and in each it is there because of that cluster's paper."""
    found = [at for at in judged.before(row) if cluster is None or int(judged.earlier[at]) in cluster]
    if not found:
        return None
    at = min(found, key=lambda a: int(roster.rank[judged.earlier[a]]))
    return int(judged.earlier[at]), judged.reasons[at]
