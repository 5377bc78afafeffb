"""``kbsearch audit``: clusters of one item told again across instances and days.

Each record is compared with its nearest records (by whole-record cosine), with every record
about one of its arXiv ids, with the records holding a rare coined name it names (check's
candidates by name, ``name_pairs``), and with records of identical text, by the same judgement
``check`` makes (``dedupe.compare``, reading the judge model's stored vectors when the config has
a judge; for a join or a pair near the line, its token alignment too: ``audit_align``): the later record
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
earliest record of the cluster it was itself judged the same item as
(``audit_clusters``), and a "claimed new" flag is raised only from such a
direct judgement (``audit_flags``).

A filter (``--since``, ``--instance``) chooses the records reported, not those compared: every
record is compared and clustered as without it, and the clusters holding a chosen record are shown
whole, with the chosen records' flags (``audit_window``). A cluster's members from before the window
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

from kbsearch.dedupe.audit_align import PairAligner, TokenSource
from kbsearch.dedupe.audit_as_checked import CheckCandidates, CheckerSource
from kbsearch.dedupe.audit_clusters import clusters_shown, told_again
from kbsearch.dedupe.audit_flags import claimed_new_flags, table_flags
from kbsearch.dedupe.audit_results import AuditResult
from kbsearch.dedupe.audit_summary import by_instance
from kbsearch.dedupe.audit_window import is_chosen, items_chosen, reported
from kbsearch.dedupe.clusters import grow_clusters
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.features import NAME_COUNT_CAP
from kbsearch.dedupe.judging import Judged, candidates, judge_candidates
from kbsearch.dedupe.name_pairs import name_pairs
from kbsearch.dedupe.names import NameHolders
from kbsearch.dedupe.neighbours import NeighbourPairs, RowsOf, index_pairs, neighbour_pairs, unique_pairs
from kbsearch.dedupe.other_language import OtherLanguage, OtherLanguagePairs
from kbsearch.dedupe.roster import CHUNK, Roster, read_roster
from kbsearch.dedupe.same_day import Moved
from kbsearch.dedupe.section_since import names_of
from kbsearch.dedupe.spilled import SpilledVectors
from kbsearch.errors import KbError
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
    tokens: TokenSource | None = None,  # the judge's token encoder, loaded for a join or a pair near the line
    checker: CheckerSource | None = None,  # check's candidate search: a pair across languages read as check reads it
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
    as_checked = CheckCandidates(store, checker, config) if checker is not None else None
    aligner = PairAligner(config, tokens, as_checked=as_checked)
    judged, built = judge_candidates(store, roster, found, config, holders.count, aligner)
    phase(
        "the pairs judged",
        f"{len(judged):,} same-item judgements kept; {built:,} records built; "
        f"{judged.read_again:,} pairs read again by their key points ({judged.read_again_seconds:.1f} s), "
        f"{judged.aligned:,} joins or pairs near the line decided with the token alignment "
        f"({judged.aligned_seconds:.1f} s), {_unaligned_joins(judged):,} joins kept without it; "
        f"{as_checked.searched if as_checked else 0:,} records checked as check reads them, for the pairs "
        "across languages (in the alignment's time)",
    )
    groups = reported(roster, grow_clusters(roster, judged))
    phase("the clusters grown", f"{len(groups):,} clusters")
    coined = partial(names_of, config=config, name_count=holders.count)  # a section's first text on the item
    moved = Moved()  # one day's items its signing times reordered: the flags follow them
    clusters = [c for c in clusters_shown(store, roster, judged, groups, chunk, coined, moved) if told_again(c)]
    clusters.sort(key=lambda c: (-c.size, c.first_seen.date or dt.date.max, c.first_seen.id))
    flags = claimed_new_flags(store, roster, judged, moved) + table_flags(store, flt)
    phase("the clusters and flags shown", f"{sum(c.size for c in clusters):,} records in clusters")
    return AuditResult(
        model=model,
        records=roster.audited,
        compared=int(roster.present.sum()),
        clusters=clusters,
        claimed_new_seen_before=flags,
        by_instance=by_instance(
            items_chosen(store, flt), clusters, flags, lambda m: is_chosen(m.instance, m.date, flt)
        ),
    )


def _unaligned_joins(judged: Judged) -> int:
    """Joins kept by a learned form without the token alignment check would read (``audit_align``:
    past the audit's bound on token reading, or no token encoder), as their reasons say."""
    return sum(1 for reason in judged.reasons if "without check's token alignment" in reason)


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
