"""``kbsearch audit``: clusters of one item told again across instances and days.

Each record is compared with its nearest records (by whole-record cosine),
with every record about one of its arXiv ids, and with records of identical
text, by the same judgement ``check`` makes (``dedupe.compare``, reading the
judge model's stored vectors when the config has a judge): the later record
is the item, the earlier one the known record. Records from one file
are never compared: a briefing's increments are distinct by construction.
A record's file is its declared ``source`` (a briefing's file, or the
document a JSONL line names): a bulk file of a million lines is not one
document.

Clusters are stars around their first-seen record, grown from those direct
judgements in time order, under rules that transitivity alone would break:

- a record joins a cluster through exact evidence shared with any member,
  or through a learned judgement of the cluster's first-seen record itself,
  never of a later member (which would chain A to C through B);

- two records about different arXiv ids are never in one cluster;
- a record about several ids (a living-document section, a survey) joins
  each cluster it is directly the same item as, but never links two
  clusters: it is evidence for each pair, not a bridge between them;
- a record's learned matches must agree, as in ``check``: one that its
  surest match is a different item from is dropped, and so is a second
  record of its surest match's file (one briefing's increments are distinct
  items, so a note resembling two of them would chain them).

A cluster's first-seen record is its earliest member; each repeat names the
earliest record it was itself judged the same item as, and a "claimed new"
flag is raised only from such a direct judgement.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from itertools import combinations

import numpy as np

from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.features import NAME_COUNT_CAP
from kbsearch.dedupe.flags import NEW_MARKERS, table_flags
from kbsearch.dedupe.names import NameHolders
from kbsearch.dedupe.neighbours import NeighbourPairs, approximate_pairs, neighbour_pairs
from kbsearch.dedupe.results import AuditResult, Cluster, ClusterMember, Flag, Match, Rule
from kbsearch.dedupe.rules import Embedded, around_of, compare, one_item
from kbsearch.errors import KbError
from kbsearch.records import IdMention, Record
from kbsearch.store import SearchFilter, Store
from kbsearch.textsim import normalized

Pair = tuple[int, int]
Earlier = dict[int, list[tuple[int, Match]]]
"""Later record → (earlier record, the later one's match against it), for every judged pair."""


def audit(store: Store, model: str, config: DedupeConfig, flt: SearchFilter | None = None) -> AuditResult:
    store.require_current_passages()
    flt = flt or SearchFilter()
    rowids = store.filter_rowids(flt)
    records = store.by_rowids(rowids if rowids is not None else store.all_rowids())
    matrix, order = _whole_matrix(store, records)
    judges = store.judge_vectors(records, config.judge) if config.judge is not None else {}
    embedded = {r: Embedded.whole_only(records[r], matrix[i], judges.get(r)) for i, r in enumerate(order)}
    lacking = [records[r].id for r in embedded if config.judge is not None and r not in judges]
    if lacking:
        raise KbError(
            f"{len(lacking)} records have no {config.judge!r} vector, e.g. {lacking[0]!r}",
            hint="run 'kbsearch reindex' (embeds what the judge lacks)",
        )
    read_from = store.files_of(list(embedded))
    files = {rowid: item.record.source or read_from.get(rowid) for rowid, item in embedded.items()}
    judged = _judge_pairs(store, embedded, files, config, matrix)
    # Indexed once by the later record: looking each repeat's judgements up in
    # every judged pair cost members × pairs, hours at a million records.
    earlier: Earlier = {}
    for (a, b), match in judged.items():
        earlier.setdefault(b, []).append((a, match))
    groups = _grow_clusters(embedded, judged, earlier)
    clusters = [_cluster(embedded, group, earlier) for group in groups]
    clusters.sort(key=lambda c: (-c.size, c.first_seen.date or dt.date.max, c.first_seen.id))
    flags = _claimed_new_flags(embedded, earlier) + _table_flags(store, flt)
    return AuditResult(model=model, records=len(embedded), clusters=clusters, claimed_new_seen_before=flags)


def _whole_matrix(store: Store, records: dict[int, Record]) -> tuple[np.ndarray, list[int]]:
    """The records' whole-text vectors as the rows of one matrix, and the rowid of
    each row: the records' vectors are views of it, so the neighbour search needs
    no second copy and the rows read from SQLite are let go (2 KB a record)."""
    wholes = store.whole_vectors(records)
    order = [r for r in sorted(records) if r in wholes]
    if not order:
        return np.zeros((0, 1), dtype=np.float32), order
    return np.stack([wholes[r] for r in order]).astype(np.float32, copy=False), order


def _order(record: Record) -> tuple[bool, dt.date, bool, str, str]:
    """Earliest first; on one day a writer's record before an unattributed card or doc."""
    return (record.date is None, record.date or dt.date.max, record.instance is None, record.instance or "", record.id)


def _judge_pairs(
    store: Store,
    embedded: dict[int, Embedded],
    files: dict[int, str | None],
    config: DedupeConfig,
    matrix: np.ndarray,
) -> dict[Pair, Match]:
    """(earlier, later) → the later record's match against the earlier one, for
    every candidate pair from two files that is judged the same item; row i of
    ``matrix`` is the whole vector of the i-th record of ``embedded``."""
    rowids = list(embedded)
    if len(rowids) < 2:
        return {}
    found = _neighbours(store, matrix, rowids, config.audit_neighbours)
    judges = [embedded[r].judge for r in rowids]
    judge_cosines = np.zeros(len(found), dtype=np.float32)
    if all(j is not None for j in judges):
        stacked = np.stack(judges)  # type: ignore[arg-type]
        judge_cosines = np.einsum("ij,ij->i", stacked[found.left], stacked[found.right])
    around: dict[int, tuple[list[float], list[float]]] = {r: ([], []) for r in rowids}
    pairs: set[Pair] = set()
    for i, j, cosine, judge in zip(
        found.left.tolist(), found.right.tolist(), found.cosine.tolist(), judge_cosines.tolist(), strict=True
    ):
        a, b = rowids[i], rowids[j]
        for end in (a, b):
            around[end][0].append(cosine)
            around[end][1].append(judge)
        pairs.add((a, b))
    pairs |= _id_pairs(embedded) | _identical_text_pairs(embedded)
    name_count = NameHolders(store, NAME_COUNT_CAP).count
    compared: dict[int, list[tuple[int, Match]]] = {}
    for a, b in sorted(pairs):
        if files.get(a) is not None and files.get(a) == files.get(b):
            continue
        earlier, later = sorted((a, b), key=lambda r: _order(embedded[r].record))
        near = around_of(*around[later], config)
        match = compare(embedded[later], embedded[earlier], config, near, name_count)
        if match.same_item:  # only same-item matches are checked against each other: keep no others
            compared.setdefault(later, []).append((earlier, match))
    judged: dict[Pair, Match] = {}
    for later, matches in compared.items():
        judged |= {(earlier, later): m for earlier, m in _one_item(matches, embedded, files, config, name_count)}
    return judged


def _neighbours(store: Store, matrix: np.ndarray, rowids: list[int], k: int) -> NeighbourPairs:
    """Each record's ``k`` nearest by whole-record cosine: exact while the index
    is, from the HNSW graph past that (an exact search would cost n² products)."""
    index = store.vector_index
    if index.kind == "flat":
        return neighbour_pairs(matrix, k, -1.0)
    return approximate_pairs(index, matrix, rowids, k, -1.0)


def _one_item(
    found: list[tuple[int, Match]],
    embedded: dict[int, Embedded],
    files: dict[int, str | None],
    config: DedupeConfig,
    name_count: Callable[[str], int],
) -> list[tuple[int, Match]]:
    """The same-item matches of one record that agree with each other: check's
    rule (``one_item``), and one file's records being distinct items, so a
    record is never learned to be two of them (a TGI note is not also the
    vLLM benchmark of the briefing that told of TGI)."""
    known = {embedded[earlier].record.id: embedded[earlier] for earlier, _ in found}
    kept = one_item([match for _, match in found], known, config, name_count)
    same = [(earlier, match) for (earlier, _), match in zip(found, kept, strict=True) if match.same_item]
    if len(same) < 2:
        return same
    anchor, _ = min(same, key=lambda pair: (pair[1].rule is Rule.learned, -pair[1].probability))
    home = files.get(anchor)
    return [
        (earlier, match)
        for earlier, match in same
        if earlier == anchor or match.rule is not Rule.learned or home is None or files.get(earlier) != home
    ]


def _id_pairs(embedded: dict[int, Embedded]) -> set[Pair]:
    by_id: dict[str, list[int]] = {}
    for rowid, item in embedded.items():
        for arxiv_id in item.record.arxiv_ids:
            by_id.setdefault(arxiv_id, []).append(rowid)
    return {(a, b) for members in by_id.values() for a, b in combinations(sorted(members), 2)}


def _identical_text_pairs(embedded: dict[int, Embedded]) -> set[Pair]:
    groups: dict[str, list[int]] = {}
    for rowid, item in embedded.items():
        groups.setdefault(normalized(item.whole_text), []).append(rowid)
    return {pair for group in groups.values() for pair in combinations(sorted(group), 2)}


def _is_hub(record: Record) -> bool:
    """About several arXiv ids: evidence for each, a bridge between none."""
    return len(set(record.arxiv_ids)) > 1


def _strength(match: Match) -> tuple[bool, float]:
    return (match.rule is not Rule.learned, match.probability)


def _grow_clusters(embedded: dict[int, Embedded], judged: dict[Pair, Match], before: Earlier) -> list[list[int]]:
    """Clusters of single-subject records; then each multi-id record joins every
    cluster holding a record it was directly judged the same item as.

    Exact evidence (an arXiv id, identical text) joins records outright. A
    learned judgement joins a group only to a cluster whose first-seen
    record it was made against: growing by any member's learned judgement
    would chain (A like B, B like C, C nothing like A) until thousands of
    records sit in one cluster. No cluster holds two different arXiv ids.
    """
    singles = {r for r in embedded if not _is_hub(embedded[r].record)}
    exact = [pair for pair, m in judged.items() if m.rule is not Rule.learned and set(pair) <= singles]
    groups = _exact_groups(embedded, singles, exact)
    order = {r: _order(embedded[r].record) for r in embedded}
    first_of: dict[int, int] = {}
    clusters: dict[int, list[int]] = {}
    ids: dict[int, set[str]] = {}
    for group in sorted(groups, key=lambda g: min(order[r] for r in g)):
        own = {i for r in group for i in embedded[r].record.arxiv_ids}
        joinable = [
            (match, earlier)
            for later in group
            for earlier, match in before.get(later, [])
            if first_of.get(earlier) == earlier and not (own and ids[earlier] and own != ids[earlier])
        ]
        first = max(joinable, key=lambda pair: _strength(pair[0]))[1] if joinable else min(group, key=order.__getitem__)
        clusters.setdefault(first, []).extend(group)
        ids[first] = ids.get(first, set()) | own
        first_of.update({r: first for r in group})
    for (a, b), _ in judged.items():
        for hub, other in ((a, b), (b, a)):
            if hub not in singles and other in singles and hub not in clusters[first_of[other]]:
                clusters[first_of[other]].append(hub)
    return [members for members in clusters.values() if len(members) > 1]


def _exact_groups(embedded: dict[int, Embedded], singles: set[int], exact: list[Pair]) -> list[list[int]]:
    """Records joined by exact evidence, never two different arXiv ids in one."""
    parent = {r: r for r in singles}
    ids = {r: set(embedded[r].record.arxiv_ids) for r in singles}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in exact:
        ra, rb = find(a), find(b)
        if ra != rb and not (ids[ra] and ids[rb] and ids[ra] != ids[rb]):
            parent[rb] = ra
            ids[ra] |= ids.pop(rb)
    groups: dict[int, list[int]] = {}
    for r in singles:
        groups.setdefault(find(r), []).append(r)
    return list(groups.values())


def _member(record: Record, seen: tuple[Record, Match] | None) -> ClusterMember:
    return ClusterMember(
        id=record.id,
        kind=record.kind,
        title=record.title,
        instance=record.instance,
        date=record.date,
        anchor=record.anchor,
        same_as=seen[0].id if seen else None,
        reason=seen[1].reasons[0] if seen and seen[1].reasons else None,
    )


def _earliest_direct(
    rowid: int, embedded: dict[int, Embedded], earlier: Earlier, cluster: set[int] | None = None
) -> tuple[Record, Match] | None:
    """The earliest record (of ``cluster``, if given) this one was itself
    judged the same item as: a section about several papers sits in several
    clusters, and in each it is there because of that cluster's paper."""
    found = [(embedded[a].record, m) for a, m in earlier.get(rowid, []) if cluster is None or a in cluster]
    return min(found, key=lambda pair: _order(pair[0]), default=None)


def _cluster(embedded: dict[int, Embedded], group: list[int], earlier: Earlier) -> Cluster:
    members = sorted(group, key=lambda r: _order(embedded[r].record))
    records = [embedded[r].record for r in members]
    single = [set(r.arxiv_ids) for r in records if r.arxiv_ids and not _is_hub(r)]
    shared = set.intersection(*single) if single else set()
    within = set(group)
    return Cluster(
        size=len(members),
        first_seen=_member(records[0], None),
        repeats=[_member(embedded[r].record, _earliest_direct(r, embedded, earlier, within)) for r in members[1:]],
        shared_ids=sorted(shared),
        instances=sorted({r.instance for r in records if r.instance}),
    )


def _claimed_new_flags(embedded: dict[int, Embedded], earlier: Earlier) -> list[Flag]:
    """A record marked new that was directly judged the same item as an earlier
    record, or as one of another instance on its day."""
    flags = []
    for rowid in sorted(embedded, key=lambda r: _order(embedded[r].record)):
        record = embedded[rowid].record
        if not record.anchor or not NEW_MARKERS.search(record.anchor):
            continue
        seen = _earliest_direct(rowid, embedded, earlier)
        if seen is None:
            continue
        first, match = seen
        if (first.date, first.instance) == (record.date, record.instance):
            continue
        message = (
            f"{record.id} ({record.instance}, {record.date}) is marked {record.anchor!r} but "
            f"{first.instance or 'a record'} had it on {first.date} ({first.id}; {match.reasons[0]})"
        )
        flags.append(Flag.seen_before(first, message))
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
