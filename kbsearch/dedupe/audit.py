"""``kbsearch audit``: clusters of one item told again across instances and days.

Each record is compared with its nearest records (by whole-record cosine), with every record
about one of its arXiv ids, with the records holding a rare coined name it names (check's
candidates by name, ``name_pairs``), and with records of identical text, by the same judgement
``check`` makes (``dedupe.compare``, reading the judge model's stored vectors when the config has
a judge; near the line, its token alignment too: ``audit_align``): the later record
is the item, the earlier one the known record. Records of one briefing
are never compared: its increments are distinct by construction. A
briefing is a file on one day (``roster.briefing_of``): an inbox file
reused from day to day holds a briefing a day, and its days are compared
as dated files are. A record's file is its declared ``source`` (a
briefing's file, or the document a JSONL line names): a bulk file of a
million lines is not one document. A record's learned matches must agree,
as in ``check``: one that its surest match is a different item from is
dropped, and so is a second record of its surest match's briefing.

Clusters are stars around their first-seen record (``clusters``). A
cluster's first-seen record is its earliest member; each repeat names the
earliest record of the cluster it was itself judged the same item as, and a
"claimed new" flag is raised only from such a direct judgement.

A filter (``--since``, ``--instance``) chooses the records reported, not those compared: every
record is compared and clustered as without it, and the clusters holding a chosen record are shown
whole, with the chosen records' flags (``_reported``). A cluster's members from before the window
say who was first, and only the whole index gives each pair its true neighbourhood.

Memory is bounded by the chunk, not the store: the records are read in chunks into a roster of a
few numbers each (``roster``), the nearest neighbours are asked chunk by chunk, the pairs are judged
a chunk at a time (``judging``), and records are read again only for the clusters shown.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from kbsearch.dedupe.audit_align import TokenSource
from kbsearch.dedupe.audit_results import AuditResult, Cluster, ClusterMember
from kbsearch.dedupe.audit_summary import by_instance
from kbsearch.dedupe.clusters import grow_clusters
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.features import NAME_COUNT_CAP
from kbsearch.dedupe.finer import COPIED
from kbsearch.dedupe.flags import row_flags
from kbsearch.dedupe.judging import Judged, candidates, judge_candidates
from kbsearch.dedupe.name_pairs import name_pairs
from kbsearch.dedupe.names import NameHolders
from kbsearch.dedupe.neighbours import NeighbourPairs, RowsOf, index_pairs, neighbour_pairs, unique_pairs
from kbsearch.dedupe.other_language import OtherLanguage, OtherLanguagePairs
from kbsearch.dedupe.results import Flag
from kbsearch.dedupe.roster import CHUNK, Roster, briefing_of, read_roster
from kbsearch.dedupe.same_day import Moved, first_of_day
from kbsearch.dedupe.section_since import Named, first_holding, names_of
from kbsearch.dedupe.spilled import SpilledVectors
from kbsearch.dedupe.stopped import stopped_item, stopped_words
from kbsearch.errors import KbError
from kbsearch.records import IdMention, Kind, Record
from kbsearch.store import SearchFilter, Store

Phase = Callable[[str, str], None]
"""Told the name of each phase as it ends, and a note (``bench/audit_phases.py``)."""


def audit(
    store: Store,
    model: str,
    config: DedupeConfig,
    flt: SearchFilter | None = None,
    *,
    chunk: int = CHUNK,
    phase: Phase = lambda name, note: None,
    tokens: TokenSource | None = None,  # the judge's token encoder, loaded for a pair near the line
) -> AuditResult:
    store.require_current_passages()
    flt = flt or SearchFilter()
    rowids = np.unique(np.array(store.all_rowids(), dtype=np.int64))
    chosen = store.filter_rowids(flt)
    with tempfile.TemporaryDirectory(prefix="kbsearch-audit-") as spill:
        finder = _NeighbourFinder(store, rowids, config.audit_neighbours)
        judges = SpilledVectors(Path(spill) / "judge.f32", len(rowids)) if config.judge else None
        wholes = SpilledVectors(Path(spill) / "whole.f32", len(rowids)) if config.audit_other_language else None

        def visit(rows: np.ndarray, vectors: np.ndarray) -> None:
            finder.visit(rows, vectors)
            if wholes is not None:
                wholes.write(rows, vectors.astype(np.float32, copy=False))

        roster = read_roster(store, rowids, config.judge, visit, judges.write if judges else None, chunk)
        if chosen is not None:
            roster.reported = np.isin(rowids, np.array(chosen, dtype=np.int64))
        if roster.lacking_judge:
            raise KbError(
                f"{len(roster.lacking_judge)} records have no {config.judge!r} vector, "
                f"e.g. {roster.lacking_judge[0]!r}",
                hint="run 'kbsearch reindex' (embeds what the judge lacks)",
            )
        phase("the roster read, each chunk's neighbours asked", f"{roster.audited:,} records")
        holders = NameHolders(store, NAME_COUNT_CAP)
        named = name_pairs(roster.names, holders, roster.rowids, config.rare_name_records)
        phase("the pairs sharing a rare name", f"{len(named[0]):,} pairs")
        neighbours = finder.pairs(roster)
        across = _across(roster, config, judges, wholes)
        judge_cosines = (
            judges.cosines(neighbours.left, neighbours.right)
            if judges is not None
            else np.zeros(len(neighbours), dtype=np.float32)
        )
    found = candidates(roster, neighbours, judge_cosines, across, named)
    phase(
        "the candidate pairs",
        f"{len(found.later):,} pairs, {len(neighbours):,} of them neighbours, "
        f"{len(across.candidates) if across else 0:,} in the other language, {len(named[0]):,} sharing a rare name",
    )
    judged, built = judge_candidates(store, roster, found, config, holders.count, tokens)
    phase(
        "the pairs judged",
        f"{len(judged):,} same-item judgements kept; {built:,} records built; "
        f"{judged.read_again:,} pairs read again by their key points ({judged.read_again_seconds:.1f} s), "
        f"{judged.aligned:,} near the line with the token alignment ({judged.aligned_seconds:.1f} s)",
    )
    groups = _reported(roster, grow_clusters(roster, judged))
    phase("the clusters grown", f"{len(groups):,} clusters")
    coined = partial(names_of, config=config, name_count=holders.count)  # a section's first text on the item
    moved = Moved()  # one day's items its signing times reordered: the flags follow them
    clusters = [c for c in _clusters(store, roster, judged, groups, chunk, coined, moved) if _told_again(c)]
    clusters.sort(key=lambda c: (-c.size, c.first_seen.date or dt.date.max, c.first_seen.id))
    flags = _claimed_new_flags(store, roster, judged, moved) + _table_flags(store, flt)
    phase("the clusters and flags shown", f"{sum(c.size for c in clusters):,} records in clusters")
    return AuditResult(
        model=model,
        records=roster.audited,
        compared=int(roster.present.sum()),
        clusters=clusters,
        claimed_new_seen_before=flags,
        by_instance=by_instance(_items(store, flt), clusters, flags, lambda m: _chosen(m.instance, m.date, flt)),
    )


def _flagged(record: Record) -> dict[str, object]:
    """A flag's own fields naming the record it flags (not only its message)."""
    return {"id": record.id, "instance": record.instance, "date": record.date}


def _items(store: Store, flt: SearchFilter) -> dict[str, int]:
    """Records per instance among those the filter chose (one count query per instance)."""
    every = {name: n for name, n in store.counts_by("instance").items() if name != "-"}  # "-": no instance
    if flt.is_empty():
        return every
    return {
        name: len(store.filter_rowids(flt.model_copy(update={"instance": name})) or [])
        for name in every
        if not flt.instance or name.lower() == flt.instance.lower()
    }


def _chosen(instance: str | None, date: dt.date | None, flt: SearchFilter) -> bool:
    """Whether a record of ``instance`` on ``date`` is one the filter chose (audit filters by these alone)."""
    return _in_range(date, flt) and (not flt.instance or (instance or "").lower() == flt.instance.lower())


def _told_again(cluster: Cluster) -> bool:
    """Whether ``cluster`` is an item told again: two records that are not living-doc
    sections. One item with the sections that hold it is no repeat (probe 10 counted
    "TreeShift" with only ``doc/inference#§1.5`` among its clusters of the same item);
    a cluster of sections alone is kept, as a doc that repeats itself is."""
    members = [cluster.first_seen, *cluster.repeats]
    items = sum(m.kind is not Kind.doc_section for m in members)
    return items != 1


def _reported(roster: Roster, groups: list[list[int]]) -> list[list[int]]:
    """The clusters holding an item the filter chose: a cluster is grown from every
    record, as the unfiltered audit grows it, so its members from before the window
    still say who was first. A living-doc section is dated by the doc's last update,
    not by when it was written, so a chosen section alone does not bring its cluster
    into a window (probe 16: ``--since 2026-10-31`` showed 30 clusters each reached only
    through an ``in doc`` section, none with an item of that day); a cluster of sections
    alone is shown for a chosen one."""
    if roster.reported is None:
        return groups
    shown = []
    for group in groups:
        chosen, items = roster.reported[group], ~roster.docs[group]
        if (chosen & items).any() or (chosen.any() and not items.any()):
            shown.append(group)
    return shown


def _across(
    roster: Roster, config: DedupeConfig, judges: SpilledVectors | None, wholes: SpilledVectors | None
) -> OtherLanguage | None:
    """Each record's nearest records in the other language, in the judge's
    space when there is one; None when the config asks for none."""
    if wholes is None:
        return None
    return OtherLanguagePairs(wholes, judges, config.audit_other_language).pairs(roster, config.neighbourhood)


class _NeighbourFinder:
    """Each record's ``k`` nearest by whole-record cosine, asked a chunk at a
    time as the roster is read: exact (one scan of the whole matrix) while the
    index is, from the HNSW graph past that (an exact scan would cost n²)."""

    def __init__(self, store: Store, rowids: np.ndarray, k: int) -> None:
        self.index = store.vector_index
        self.rowids = rowids
        self.k = k
        self.exact = self.index.kind == "flat"
        self.found: list[NeighbourPairs] = []
        self.rows: list[np.ndarray] = []
        self.vectors: list[np.ndarray] = []

    def visit(self, rows: np.ndarray, vectors: np.ndarray) -> None:
        if self.exact:  # a flat index holds under 100k vectors: their matrix is small
            self.rows.append(rows)
            self.vectors.append(vectors.astype(np.float32, copy=False))
        else:
            self.found.append(index_pairs(self.index, vectors, rows, RowsOf(self.rowids), self.k, -1.0))

    def pairs(self, roster: Roster) -> NeighbourPairs:
        if self.exact:
            if not self.rows:
                return unique_pairs([], len(roster))
            rows = np.concatenate(self.rows)
            found = neighbour_pairs(np.concatenate(self.vectors), self.k, -1.0)
            self.vectors = []
            return NeighbourPairs(left=rows[found.left], right=rows[found.right], cosine=found.cosine)
        found = unique_pairs(self.found, len(roster))
        keep = roster.present[found.left] & roster.present[found.right]
        return NeighbourPairs(left=found.left[keep], right=found.right[keep], cosine=found.cosine[keep])


def _clusters(
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
            out += [_cluster(roster, judged, g, records, named, moved) for g in batch]
            start, size = end, 0
    return out


def _cluster(
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


def _claimed_new_flags(store: Store, roster: Roster, judged: Judged, moved: Moved) -> list[Flag]:
    """A record marked new that was directly judged the same item as an earlier
    record, or as one of another instance on its day, in the clusters' order (``moved``).
    A section holding it by one copied claim is no such record: the claim is not the item
    (``doc_subject``; probe 35: a restated date and fine flagged a new template)."""
    seen = {}
    for row in np.flatnonzero(roster.marked_new & roster.reportable).tolist():
        direct = moved.earliest_judged(row, judged, lambda r: int(roster.rank[r]), lambda why: why != COPIED)
        if direct is not None:
            seen[row] = direct
    rows = sorted(seen, key=lambda r: moved.rank.get(r, int(roster.rank[r])))
    records = store.by_rowids([int(roster.rowids[r]) for r in {*rows, *(e for e, _ in seen.values())}])
    flags = []
    for row in rows:
        record, (earlier, reason) = records[int(roster.rowids[row])], seen[row]
        first = records[int(roster.rowids[earlier])]
        if (first.date, first.instance) == (record.date, record.instance):
            continue
        message = (
            f"{record.id} ({record.instance}, {record.date}) is marked {record.anchor!r} but "
            f"{first.instance or 'a record'} had it on {first.date} ({first.id}; {reason})"
        )
        flags.append(Flag.seen_before(first, message).model_copy(update=_flagged(record)))
    return flags


def _table_flags(store: Store, flt: SearchFilter) -> list[Flag]:
    """Id-table rows calling an id new that the same table or an earlier record had.
    A table is a briefing's (``briefing_of``): a reused inbox file holds one a day."""
    tables: dict[object, list[IdMention]] = {}
    for mention in store.id_mentions():
        if not _chosen(mention.instance, mention.date, flt):
            continue
        tables.setdefault(briefing_of(mention.source, mention.date), []).append(mention)
    # No record is left out: a row is checked only against records dated before its
    # table, never its own briefing's, and a reused file's other days are the very
    # records a row calling an id new today must be checked against, as check does.
    known = SearchFilter()
    flags = []
    for mentions in tables.values():
        for mention in mentions:
            # Each row's own day: a reused inbox file holds a table per day.
            where = f"{mention.instance or '?'} {mention.date or ''}".strip()
            found = row_flags(store, mention, mentions, known)
            stopped = stopped_item(store, mention) if found else None  # the row's item the gate left out
            for flag in found:
                note = stopped_words(stopped) if stopped is not None else ""
                told = {"message": f"{where}: {flag.message}{note}", "instance": mention.instance, "date": mention.date}
                flags.append(flag.model_copy(update={**told, "stopped_at_gate": stopped and stopped.id}))
    return flags


def _in_range(date: dt.date | None, flt: SearchFilter) -> bool:
    if date is None:
        return flt.since is None and flt.until is None
    return (flt.since is None or date >= flt.since) and (flt.until is None or date <= flt.until)
