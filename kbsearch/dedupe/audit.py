"""``kbsearch audit``: clusters of one item told again across instances and days.

Every record is linked to its near neighbours that the dedupe rules call the
same item, and to every record about the same arXiv id; union-find turns the
links into clusters. Records from one file are never linked: a briefing's
increments are distinct by construction.

Near neighbours come from one batched search over one vector per record (see
``kbsearch.dedupe.neighbours``): each record's ``NEIGHBOURS`` nearest by whole-record
cosine, the score the rules read, kept when that cosine could pass a rule.
Records with identical text are compared whatever their rank.
"""

from __future__ import annotations

import datetime as dt
from itertools import combinations

import numpy as np

from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.flags import NEW_MARKERS, table_flags
from kbsearch.dedupe.neighbours import neighbour_pairs
from kbsearch.dedupe.rarity import rare_name_test, rare_text_name_test
from kbsearch.dedupe.results import AuditResult, Cluster, ClusterMember, Flag, FlagKind
from kbsearch.dedupe.rules import Embedded, compare, lowest_same_item_cosine
from kbsearch.records import IdMention, Record
from kbsearch.store import SearchFilter, Store
from kbsearch.textsim import normalized

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


def audit(store: Store, model: str, flt: SearchFilter | None = None, config: DedupeConfig | None = None) -> AuditResult:
    config = config or DedupeConfig()
    flt = flt or SearchFilter()
    rowids = store.filter_rowids(flt)
    records = store.by_rowids(rowids if rowids is not None else store.all_rowids())
    wholes = store.whole_vectors(records)
    embedded = {r: Embedded.whole_only(records[r], wholes[r]) for r in sorted(records) if r in wholes}
    files = store.files_of(list(embedded))
    links = _UnionFind()
    for rowid in embedded:
        links.find(rowid)
    _link_by_ids(embedded, files, links)
    _link_by_meaning(store, embedded, files, links, config)
    clusters = _clusters(embedded, links)
    flags = _claimed_new_flags(clusters, embedded, links) + _table_flags(store, flt)
    return AuditResult(model=model, records=len(embedded), clusters=clusters, claimed_new_seen_before=flags)


def _link_by_ids(embedded: dict[int, Embedded], files: dict[int, str | None], links: _UnionFind) -> None:
    """Records about one arXiv id are one cluster once two of them come from
    different files (a record without a file counts as its own file)."""
    by_id: dict[str, list[int]] = {}
    for rowid, item in embedded.items():
        for arxiv_id in item.record.arxiv_ids:
            by_id.setdefault(arxiv_id, []).append(rowid)
    for members in by_id.values():
        origins = {files.get(m) if files.get(m) is not None else f"\0{m}" for m in members}
        if len(origins) > 1:
            for other in members[1:]:
                links.union(members[0], other)


def _link_by_meaning(
    store: Store, embedded: dict[int, Embedded], files: dict[int, str | None], links: _UnionFind, config: DedupeConfig
) -> None:
    is_rare, is_rare_in_text = rare_name_test(store, config), rare_text_name_test(store, config)
    for a, b in _candidate_pairs(embedded, config):
        if links.find(a) == links.find(b):
            continue
        if files.get(a) is not None and files.get(a) == files.get(b):
            continue
        if compare(embedded[a], embedded[b], config, is_rare, is_rare_in_text).same_item:
            links.union(a, b)


def _candidate_pairs(embedded: dict[int, Embedded], config: DedupeConfig) -> list[tuple[int, int]]:
    """Row id pairs worth a ``compare``: near neighbours whose cosine could pass
    a rule, nearest first, then records with identical text (a rule that needs
    no cosine)."""
    rowids = list(embedded)
    if not rowids:
        return []
    matrix = np.stack([embedded[r].whole for r in rowids])
    found = neighbour_pairs(matrix, NEIGHBOURS, lowest_same_item_cosine(config))
    order = np.argsort(-found.cosine, kind="stable")
    pairs = [
        (rowids[i], rowids[j]) for i, j in zip(found.left[order].tolist(), found.right[order].tolist(), strict=True)
    ]
    return pairs + _identical_text_pairs(embedded)


def _identical_text_pairs(embedded: dict[int, Embedded]) -> list[tuple[int, int]]:
    groups: dict[str, list[int]] = {}
    for rowid, item in embedded.items():
        groups.setdefault(normalized(item.whole_text), []).append(rowid)
    return [pair for group in groups.values() if len(group) > 1 for pair in combinations(group, 2)]


def _member(record: Record) -> ClusterMember:
    return ClusterMember(
        id=record.id,
        kind=record.kind,
        title=record.title,
        instance=record.instance,
        date=record.date,
        anchor=record.anchor,
    )


def _order(record: Record) -> tuple[bool, dt.date, bool, str, str]:
    return (record.date is None, record.date or dt.date.max, record.instance is None, record.instance or "", record.id)


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
        clusters.append(
            Cluster(
                size=len(members),
                first_seen=_member(members[0]),
                repeats=[_member(m) for m in members[1:]],
                shared_ids=sorted(shared),
                instances=sorted({m.instance for m in members if m.instance}),
            )
        )
    clusters.sort(key=lambda c: (-c.size, c.first_seen.date or dt.date.max, c.first_seen.id))
    return clusters


def _claimed_new_flags(clusters: list[Cluster], embedded: dict[int, Embedded], links: _UnionFind) -> list[Flag]:
    flags = []
    for cluster in clusters:
        first = cluster.first_seen
        for member in cluster.repeats:
            if not member.anchor or not NEW_MARKERS.search(member.anchor):
                continue
            if (first.date, first.instance) == (member.date, member.instance):
                continue
            flags.append(
                Flag(
                    kind=FlagKind.claimed_new_seen_before,
                    first_seen_id=first.id,
                    first_seen_instance=first.instance,
                    first_seen_date=first.date,
                    message=f"{member.id} ({member.instance}, {member.date}) is marked "
                    f"{member.anchor!r} but {first.instance or 'a record'} had it on "
                    f"{first.date} ({first.id})",
                )
            )
    return flags


def _table_flags(store: Store, flt: SearchFilter) -> list[Flag]:
    """Id-table rows calling an id new that the same table or an earlier record had."""
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
