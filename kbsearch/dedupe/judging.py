"""Audit's same-item judgements, made a chunk of records at a time.

Each candidate pair is judged as ``check`` would judge it (``compare``, then
``one_item`` over the later record's same-item matches), but the records a
pair reads are built (``Embedded``: the record, its vectors and its text
features, about 10 KB) only for the chunk being judged, from a cache of
bounded size. The pairs are visited in an order that keeps neighbours
together (reverse Cuthill-McKee over the pair graph), so a record is built a
few times, not once per pair. What is kept of a judgement is four numbers
and its reason: a million records' judgements fit in a few hundred MB.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, partial
from typing import TypeVar

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import reverse_cuthill_mckee

from kbsearch.dedupe.audit_align import PairAligner
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.doc_holding import in_doc
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.key_points import KeyPointReading
from kbsearch.dedupe.neighbours import NeighbourPairs
from kbsearch.dedupe.other_language import OtherLanguage
from kbsearch.dedupe.results import Match, Rule
from kbsearch.dedupe.roster import Roster
from kbsearch.dedupe.rules import Embedded, around_of, one_item
from kbsearch.records import Kind
from kbsearch.store import Store

T = TypeVar("T")

PAIRS_PER_CHUNK = 20_000
"""Pairs judged per chunk: their records (a few thousand) are built at once."""
CACHE_RECORDS = 30_000
"""Built records kept between chunks (about 10 KB each): neighbours of the
next chunk are mostly among them."""


@dataclass
class Judged:
    """The same-item judgements kept, grouped by the later record: for each,
    the earlier record, whether exact evidence settled it, its probability and
    its first reason."""

    earlier: np.ndarray
    later: np.ndarray
    exact: np.ndarray
    probability: np.ndarray
    reasons: list[str]
    starts: np.ndarray
    """``starts[row]:starts[row + 1]`` are the judgements whose later record is ``row``."""
    held: np.ndarray
    """1: the earlier record is a living-doc section holding the later (``in_doc``), 2: the
    later one holds the earlier, 0: neither. A section holding an item joins its cluster but
    never heads it nor bridges two (``clusters``)."""
    read_again: int = 0
    read_again_seconds: float = 0.0
    """Pairs the summary form set apart read again by their key points (``key_points``)."""
    aligned: int = 0
    aligned_seconds: float = 0.0
    """Joins and pairs near the line decided again with the judge's token alignment (``audit_align``)."""

    @classmethod
    def of(cls, rows: int, found: list[tuple[int, int, bool, float, str]], held: list[int] | None = None) -> Judged:
        """From (earlier, later, exact, probability, reason) in judging order, and each one's
        ``held`` (none: 0); a later record's judgements keep their order."""
        later = np.array([f[1] for f in found], dtype=np.int64)
        order, starts = by_row(later, rows)
        return cls(
            earlier=np.array([f[0] for f in found], dtype=np.int64)[order],
            later=later[order],
            exact=np.array([f[2] for f in found], dtype=bool)[order],
            probability=np.array([f[3] for f in found], dtype=np.float64)[order],
            reasons=[found[i][4] for i in order.tolist()],
            starts=starts,
            held=np.array(held if held is not None else [0] * len(found), dtype=np.int8)[order],
        )

    def __len__(self) -> int:
        return len(self.earlier)

    def before(self, later: int) -> range:
        """Indices of the judgements of ``later`` against earlier records."""
        return range(int(self.starts[later]), int(self.starts[later + 1]))

    def strength(self, at: int) -> tuple[bool, float]:
        """Exact evidence before any probability, then the surer probability."""
        return (bool(self.exact[at]), float(self.probability[at]))


@dataclass
class Candidates:
    """Pairs to judge, as (earlier, later) rows in first-seen order, and each
    row's neighbourhood: the cosines of its nearest records under each encoder."""

    earlier: np.ndarray
    later: np.ndarray
    neighbours: NeighbourPairs
    judge_cosines: np.ndarray
    across: OtherLanguage | None = None
    """Each row's nearest records in the other language, when audit asks for
    them: the neighbourhood a pair across languages is judged against."""

    def around_reader(self, roster: Roster, config: DedupeConfig) -> Callable[[int], Callable[[int], Neighbourhood]]:
        """Later row → (earlier row → the later row's neighbourhood for that
        pair): among its nearest records, or, for a pair across languages when
        ``across`` is known, among its nearest records in the earlier one's
        language (the language gap lowers every cosine across it, so a repeat
        is judged against the records it competes with). Each is read once
        per later row. Two living-doc sections are judged among the later one's nearest records
        whatever their languages, as check, explain and similar judge them: a section is no
        retelling, and a doc's sections of either language are each other's neighbours (probe
        19: a Chinese section on multi-tenant isolation and an English one on sandboxes, each
        among the other's nearest, read against the English records alone, 0.11 apart on
        average, were one item at 0.70, where ``similar`` read 0.00)."""
        near = _reader(self.neighbours, self.judge_cosines, len(roster), config)
        across = self.across
        far = None if across is None else _reader(across.nearby, across.nearby_judged, len(roster), config)
        return _by_language(roster, near, far)

    def nearest_reader(self, roster: Roster) -> Callable[[int], Callable[[int], np.ndarray]]:
        """Later row → (earlier row → the rows of the neighbourhood ``around_reader`` reads for
        that pair): a join or a pair near the line reads their token alignments (``audit_align``)."""
        near = _rows_reader(self.neighbours, len(roster))
        far = None if self.across is None else _rows_reader(self.across.nearby, len(roster))
        return _by_language(roster, near, far)


def _by_language(
    roster: Roster, near: Callable[[int], T], far: Callable[[int], T] | None
) -> Callable[[int], Callable[[int], T]]:
    """Later row → (earlier row → what ``near`` reads of the later row, or ``far`` for a pair
    across languages when it is given; each read once per later row)."""
    chinese, docs = roster.chinese, roster.docs

    def for_later(later: int) -> Callable[[int], T]:
        own = near(later)
        if far is None:
            return lambda earlier: own
        other = cache(lambda: far(later))
        return lambda earlier: own if chinese[later] == chinese[earlier] or docs[later] & docs[earlier] else other()

    return for_later


def _rows_reader(pairs: NeighbourPairs, rows: int) -> Callable[[int], np.ndarray]:
    """Row → the rows at the other end of its ``pairs``."""
    order, starts = by_row(np.concatenate([pairs.left, pairs.right]), rows)
    others = np.concatenate([pairs.right, pairs.left])[order]
    return lambda row: others[int(starts[row]) : int(starts[row + 1])]


def _reader(
    pairs: NeighbourPairs, judge_cosines: np.ndarray, rows: int, config: DedupeConfig
) -> Callable[[int], Neighbourhood]:
    """Row → its neighbourhood, read from ``pairs`` at either end."""
    order, starts = by_row(np.concatenate([pairs.left, pairs.right]), rows)
    cosines = np.concatenate([pairs.cosine, pairs.cosine])[order]
    judged = np.concatenate([judge_cosines, judge_cosines])[order]

    def around(row: int) -> Neighbourhood:
        at = slice(int(starts[row]), int(starts[row + 1]))
        return around_of(cosines[at].tolist(), judged[at].tolist(), config)

    return around


def by_row(keys: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """The order that groups ``keys`` (row numbers) by row, stable, and where
    each row's group starts: row r's are ``order[starts[r]:starts[r + 1]]``."""
    order = np.argsort(keys, kind="stable")
    return order, np.searchsorted(keys[order], np.arange(rows + 1))


def candidates(
    roster: Roster,
    neighbours: NeighbourPairs,
    judge_cosines: np.ndarray,
    across: OtherLanguage | None = None,
    named: tuple[np.ndarray, np.ndarray] | None = None,
) -> Candidates:
    """Every pair to judge: nearest neighbours, nearest records in the other
    language, records about one arXiv id, records of identical text and
    ``named``, records sharing a rare coined name (``name_pairs``), each
    once, none of two records of one briefing. Only ``neighbours`` make a
    record's neighbourhood."""
    exact = _id_pairs(roster) + _identical_text_pairs(roster) + ([named] if named is not None else [])
    if across is not None:
        exact.append((across.candidates.left, across.candidates.right))
    left = np.concatenate([neighbours.left, *(pair[0] for pair in exact)]).astype(np.int64)
    right = np.concatenate([neighbours.right, *(pair[1] for pair in exact)]).astype(np.int64)
    n = max(len(roster), 1)
    keys = np.unique(left * n + right)
    left, right = keys // n, keys % n
    keep = roster.present[left] & roster.present[right]
    keep &= ~((roster.briefing_key[left] != 0) & (roster.briefing_key[left] == roster.briefing_key[right]))
    left, right = left[keep], right[keep]
    later_is_right = roster.rank[right] > roster.rank[left]
    return Candidates(
        earlier=np.where(later_is_right, left, right),
        later=np.where(later_is_right, right, left),
        neighbours=neighbours,
        judge_cosines=judge_cosines,
        across=across,
    )


def _id_pairs(roster: Roster) -> list[tuple[np.ndarray, np.ndarray]]:
    by_id: dict[str, list[int]] = {}
    for row, ids in roster.arxiv.items():
        for arxiv_id in ids:
            by_id.setdefault(arxiv_id, []).append(row)
    return [_all_pairs(np.array(sorted(rows), dtype=np.int64)) for rows in by_id.values() if len(rows) > 1]


def _identical_text_pairs(roster: Roster) -> list[tuple[np.ndarray, np.ndarray]]:
    rows = np.flatnonzero(roster.present)
    keys = roster.text_key[rows]
    order = np.argsort(keys, kind="stable")
    rows, keys = rows[order], keys[order]
    starts = np.flatnonzero(np.r_[True, np.diff(keys) != 0])
    stops = np.r_[starts[1:], len(keys)]
    shared = np.flatnonzero(stops - starts > 1)  # a million texts, a few repeated: split only those
    return [_all_pairs(np.sort(rows[starts[g] : stops[g]])) for g in shared.tolist()]


def _all_pairs(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(len(rows), k=1)
    return rows[i], rows[j]


def judge_candidates(
    store: Store,
    roster: Roster,
    found: Candidates,
    config: DedupeConfig,
    name_count: Callable[[str], int],
    aligner: PairAligner | None = None,
) -> tuple[Judged, int]:
    """The kept same-item judgements, and how many records were built to make them; ``aligner``:
    reads the joins and the pairs near the line with the judge's token alignment (``audit_align``)."""
    records = RecordCache(store, roster, config.judge, CACHE_RECORDS)
    around, nearest = found.around_reader(roster, config), found.nearest_reader(roster)
    again = KeyPointReading(store, roster, config, name_count, aligner or PairAligner(config, None))
    kept: list[tuple[int, int, bool, float, str]] = []
    held: list[int] = []
    for chunk in _chunks(found, len(roster)):
        records.hold({r for later, earliers in chunk for r in (later, *earliers)})
        for later, earliers in chunk:
            item, near, rows = records[later], around(later), nearest(later)
            same = []
            for earlier in earliers:
                them = partial(records.of, rows(earlier))  # built only for a join or a pair near the line
                match = again.judge((later, item, earlier, records[earlier]), near(earlier), them)
                match = in_doc(match, item, records[earlier], config, name_count)
                if match.same_item:
                    same.append((earlier, match))
            for earlier, match in _one_item(same, item, records, roster, config, name_count):
                reason = sys.intern(match.reasons[0]) if match.reasons else ""
                kept.append((earlier, later, match.rule is not Rule.learned, match.probability, reason))
                sections = (records[earlier].record.kind, item.record.kind)
                held.append(0 if match.rule is not Rule.doc_section else 1 if sections[0] is Kind.doc_section else 2)
    judged = Judged.of(len(roster), kept, held)
    judged.read_again, judged.read_again_seconds = again.read, again.seconds
    judged.aligned, judged.aligned_seconds = again.aligner.aligned, again.aligner.seconds
    return judged, records.built


def _chunks(found: Candidates, rows: int) -> Iterator[list[tuple[int, list[int]]]]:
    """(later, its earlier rows ascending) for every later record, in chunks of
    about ``PAIRS_PER_CHUNK`` pairs, neighbours of the pair graph together."""
    if not len(found.later):
        return
    graph = coo_matrix((np.ones(len(found.later), dtype=np.int8), (found.later, found.earlier)), shape=(rows, rows))
    place = np.empty(rows, dtype=np.int64)
    place[reverse_cuthill_mckee((graph + graph.T).tocsr(), symmetric_mode=True)] = np.arange(rows)
    order = np.lexsort((found.earlier, place[found.later]))
    later, earlier = found.later[order], found.earlier[order]
    bounds = np.flatnonzero(np.diff(later)) + 1
    chunk: list[tuple[int, list[int]]] = []
    pairs = 0
    for start, stop in zip([0, *bounds.tolist()], [*bounds.tolist(), len(later)], strict=True):
        chunk.append((int(later[start]), earlier[start:stop].tolist()))
        pairs += stop - start
        if pairs >= PAIRS_PER_CHUNK:
            yield chunk
            chunk, pairs = [], 0
    if chunk:
        yield chunk


def _one_item(
    found: list[tuple[int, Match]],
    item: Embedded,
    records: RecordCache,
    roster: Roster,
    config: DedupeConfig,
    name_count: Callable[[str], int],
) -> list[tuple[int, Match]]:
    """The same-item matches of one record that agree with each other: check's
    rule (``one_item``), and one briefing's records being distinct items, so a
    record is never learned to be two of them (a TGI note is not also the
    vLLM benchmark of the briefing that told of TGI)."""
    # A section holding the item (``in_doc``) is never the item: not the surest match that
    # would set the item's other records apart as different items from a section.
    holding = [(earlier, match) for earlier, match in found if match.rule is Rule.doc_section]
    found = [(earlier, match) for earlier, match in found if match.rule is not Rule.doc_section]
    known = {records[earlier].record.id: records[earlier] for earlier, _ in found}
    kept = one_item([match for _, match in found], known, config, name_count, item)
    same = [(earlier, match) for (earlier, _), match in zip(found, kept, strict=True) if match.same_item]
    if len(same) < 2:
        return same + holding
    anchor, _ = min(same, key=lambda pair: (pair[1].rule is Rule.learned, -pair[1].probability))
    return [
        (earlier, match)
        for earlier, match in same
        if earlier == anchor or match.rule is not Rule.learned or not roster.same_briefing(anchor, earlier)
    ] + holding


class RecordCache:
    """Records built for judging (``Embedded``), the least recently held let go first."""

    def __init__(self, store: Store, roster: Roster, judge: str | None, capacity: int) -> None:
        self.store = store
        self.roster = roster
        self.judge = judge
        self.capacity = capacity
        self.items: OrderedDict[int, Embedded] = OrderedDict()
        self.built = 0

    def __getitem__(self, row: int) -> Embedded:
        return self.items[row]

    def of(self, rows: np.ndarray) -> list[Embedded]:
        """The records of ``rows``, built now where they are not held (the next ``hold`` trims them)."""
        wanted = rows.tolist()
        missing = [r for r in dict.fromkeys(wanted) if r not in self.items]
        if missing:
            self._build(missing)
        return [self.items[r] for r in wanted]

    def hold(self, rows: set[int]) -> None:
        """Make sure every row of ``rows`` is built, keeping at most ``capacity``
        others (never one of ``rows``)."""
        for row in rows & self.items.keys():
            self.items.move_to_end(row)
        missing = sorted(rows - self.items.keys())
        while self.items and len(self.items) + len(missing) > max(self.capacity, len(rows)):
            oldest = next(iter(self.items))
            if oldest in rows:
                break
            del self.items[oldest]
        for start in range(0, len(missing), 5_000):
            self._build(missing[start : start + 5_000])

    def _build(self, rows: list[int]) -> None:
        rowids = [int(self.roster.rowids[r]) for r in rows]
        records = self.store.by_rowids(rowids)
        wholes = self.store.whole_vectors(records)
        judges = self.store.judge_vectors(records, self.judge) if self.judge is not None else {}
        for row, rowid in zip(rows, rowids, strict=True):
            self.items[row] = Embedded.whole_only(records[rowid], wholes[rowid], judges.get(rowid))
        self.built += len(rows)
