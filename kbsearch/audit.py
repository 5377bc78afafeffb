"""``kbsearch audit``: clusters of one item told again across instances and days.

Every record is linked to its near neighbours that the dedupe rules call the
same item, and to every record about the same arXiv id; union-find turns the
links into clusters. Records from one file are never linked: a briefing's
increments are distinct by construction.
"""

from __future__ import annotations

import datetime as dt

from kbsearch.dedupe import Embedded, compare
from kbsearch.records import IdMention, Record
from kbsearch.store import SearchFilter, Store
from kbsearch.verdicts import AuditResult, Cluster, ClusterMember, DedupeConfig, Flag, FlagKind

NEIGHBOURS = 10


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, x: int) -> int:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def audit(store: Store, model: str, flt: SearchFilter | None = None,
          config: DedupeConfig | None = None) -> AuditResult:
    config = config or DedupeConfig()
    flt = flt or SearchFilter()
    rowids = store.filter_rowids(flt)
    records = store.by_rowids(rowids if rowids is not None else _all_rowids(store))
    vectors = store.passage_vectors(list(records))
    embedded = {r: Embedded(records[r], vectors[r]) for r in records if r in vectors}
    files = store.files_of(list(embedded))
    links = _UnionFind()
    for rowid in embedded:
        links.find(rowid)
    _link_by_ids(store, embedded, files, links)
    _link_by_meaning(store, embedded, files, links, flt, config)
    clusters = _clusters(embedded, links)
    flags = _claimed_new_flags(clusters, embedded, links) + _table_flags(store, flt)
    return AuditResult(model=model, records=len(embedded), clusters=clusters, claimed_new_seen_before=flags)


def _all_rowids(store: Store) -> list[int]:
    return [r[0] for r in store.db.execute("SELECT rowid FROM records")]


def _link_by_ids(store: Store, embedded: dict[int, Embedded], files: dict[int, str | None],
                 links: _UnionFind) -> None:
    by_id: dict[str, list[int]] = {}
    for rowid, item in embedded.items():
        for arxiv_id in item.record.arxiv_ids:
            by_id.setdefault(arxiv_id, []).append(rowid)
    for members in by_id.values():
        for other in members[1:]:
            if files.get(other) != files.get(members[0]) or files.get(other) is None:
                links.union(members[0], other)


def _link_by_meaning(store: Store, embedded: dict[int, Embedded], files: dict[int, str | None],
                     links: _UnionFind, flt: SearchFilter, config: DedupeConfig) -> None:
    from kbsearch.check import rare_name_test

    is_rare = rare_name_test(store, config)
    for rowid, item in embedded.items():
        for other, _, _ in store.search_records(item.whole, NEIGHBOURS + 1, flt):
            if other == rowid or other not in embedded or links.find(other) == links.find(rowid):
                continue
            if files.get(other) is not None and files.get(other) == files.get(rowid):
                continue
            if compare(item, embedded[other], config, is_rare).same_item:
                links.union(rowid, other)


def _member(record: Record) -> ClusterMember:
    return ClusterMember(id=record.id, kind=record.kind, title=record.title, instance=record.instance,
                         date=record.date, anchor=record.anchor)


def _order(record: Record) -> tuple[bool, dt.date, bool, str, str]:
    return (record.date is None, record.date or dt.date.max, record.instance is None,
            record.instance or "", record.id)


def _clusters(embedded: dict[int, Embedded], links: _UnionFind) -> list[Cluster]:
    groups: dict[int, list[Record]] = {}
    for rowid, item in embedded.items():
        groups.setdefault(links.find(rowid), []).append(item.record)
    clusters = []
    for members in groups.values():
        if len(members) < 2:
            continue
        members.sort(key=_order)
        shared = set(members[0].arxiv_ids).intersection(*(set(m.arxiv_ids) for m in members[1:]))
        clusters.append(Cluster(size=len(members), first_seen=_member(members[0]),
                                repeats=[_member(m) for m in members[1:]], shared_ids=sorted(shared),
                                instances=sorted({m.instance for m in members if m.instance})))
    clusters.sort(key=lambda c: (-c.size, c.first_seen.date or dt.date.max, c.first_seen.id))
    return clusters


def _claimed_new_flags(clusters: list[Cluster], embedded: dict[int, Embedded],
                       links: _UnionFind) -> list[Flag]:
    from kbsearch.check import NEW_MARKERS

    flags = []
    for cluster in clusters:
        first = cluster.first_seen
        for member in cluster.repeats:
            if not member.anchor or not NEW_MARKERS.search(member.anchor):
                continue
            if (first.date, first.instance) == (member.date, member.instance):
                continue
            flags.append(Flag(kind=FlagKind.claimed_new_seen_before, first_seen_id=first.id,
                              first_seen_instance=first.instance, first_seen_date=first.date,
                              message=f"{member.id} ({member.instance}, {member.date}) is marked "
                                      f"{member.anchor!r} but {first.instance or 'a record'} had it on "
                                      f"{first.date} ({first.id})"))
    return flags


def _table_flags(store: Store, flt: SearchFilter) -> list[Flag]:
    """Id-table rows calling an id new that the same table or an earlier record had."""
    from kbsearch.check import table_flags

    by_source: dict[str, list[IdMention]] = {}
    for mention in store.id_mentions():
        if not _in_range(mention.date, flt):
            continue
        if flt.instance and (mention.instance or "").lower() != flt.instance.lower():
            continue
        by_source.setdefault(mention.source or "", []).append(mention)
    flags = []
    for source, mentions in by_source.items():
        for flag in table_flags(store, mentions, source or None, None):
            where = f"{mentions[0].instance or '?'} {mentions[0].date or ''}".strip()
            flags.append(flag.model_copy(update={"message": f"{where}: {flag.message}"}))
    return flags


def _in_range(date: dt.date | None, flt: SearchFilter) -> bool:
    if date is None:
        return flt.since is None and flt.until is None
    return (flt.since is None or date >= flt.since) and (flt.until is None or date <= flt.until)
