"""What ``check`` reads for the later record of a pair across languages, as of its day: audit's
confirming reading of such a pair uses it (``audit_align``), so one pair gets one answer.

Audit reads a pair across languages against the later record's nearest records in the
earlier one's language (``judging``); check reads its candidates of both languages, and
aligns only the ``aligned_candidates`` nearest by the judge's cosine and those past them
decided near the line (``beyond_cap``). The two part: probe 43's audit joined a lab's
licence policy (Chinese) with a reranker release (English) at 0.91, read against English
records alone, where check read 0.52 < 0.55 against its candidates. Reading every such pair
against check's neighbourhood is no fix alone: texts in one language align better with each
other than with a true retelling in the other, so the neighbourhood's mean alignment of a
mixed neighbourhood is above a true cross-language pair's own (probe 35: two true pairs,
14th and 22nd among check's candidates, that check decides unaligned past its cap, fell).

So a pair across languages that audit would decide again with the alignment is decided as
check decides it for the later record on its day: its candidates (``Checker.candidates``
under ``check_filter``: none dated after the day, its own briefing's records left out as a
resubmitted input's are), the ``aligned_candidates`` nearest given token vectors and those
past them near the line too (``Checker.compared``, ``beyond_cap``), the neighbourhood and
its mean alignment read over them. When check aligns the pair, its decision is audit's;
when check decides it unaligned (past its cap, far from the line) audit's unaligned reading
stands, as before. An earlier record check never compared (not among its candidates) is
read as ``explain`` reads it: aligned, against check's candidates. Pairs within one
language are read as before.

Bounded: one candidate search and one comparison of the candidates per record of a later
record's briefing (its earlier items first, as one check reads them; kept for the later
record's other pairs), and at most ``MAX_RECORDS`` records an audit: past it a pair is
read against audit's own neighbourhood, as before. A check's search of a stored record costs a
few searches of the index (whole text, title, each key point), the loading of their records
and the token vectors of at most twice ``aligned_candidates`` of them, once a process.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from kbsearch.dedupe.check_day import check_filter
from kbsearch.dedupe.check_reading import to_align
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.embedded import Embedded
from kbsearch.dedupe.results import Match
from kbsearch.dedupe.rules import compare, neighbourhood
from kbsearch.filters import SearchFilter
from kbsearch.records import Record
from kbsearch.store import Store

if TYPE_CHECKING:
    from kbsearch.dedupe.check import Checker

CheckerSource = Callable[[], "Checker"]
"""A ``Checker`` of the audited store, built when a pair across languages first asks."""

MAX_RECORDS = 2_000
"""Records whose check candidates an audit searches, at most (later records of pairs across
languages, and the items of their briefings)."""
KEPT = 64
"""Records' candidate lists kept: the pairs of one later record are judged together."""


Read = tuple[Embedded, dict[str, Embedded], dict[str, Match], "Checker"]
"""A record as check read it: itself, its candidates, check's decision of each, and that check."""


class CheckCandidates:
    """Check's decisions of a later record's candidates as of its day, read once per briefing."""

    def __init__(
        self, store: Store, checker: CheckerSource, config: DedupeConfig, max_records: int = MAX_RECORDS
    ) -> None:
        self.store, self.config, self.max_records = store, config, max_records
        self._make = checker
        self._read: OrderedDict[str, Read] = OrderedDict()
        self.searched = 0
        """Records whose candidates were searched."""

    def decided(self, item: Embedded, known: Embedded) -> Match | None:
        """Check's decision of the pair (later ``item``, earlier ``known``); None when the pair
        is in one language, or the bound is spent (audit's own reading stands)."""
        if item.language == known.language:
            return None
        read = self._of(item)
        if read is None:
            return None
        ours, found, matches, checker = read
        if known.record.id in matches:
            return matches[known.record.id]
        # Never compared by check: read as ``explain`` reads such a pair (``as_check_reads``).
        other = copy.copy(known)
        other.judge_tokens = None
        checker.with_tokens([other])
        around = neighbourhood(ours, list(found.values()), self.config)
        return compare(ours, other, self.config, around, checker.name_count)

    def _of(self, item: Embedded) -> Read | None:
        key = item.record.id
        if key not in self._read:
            if self.searched >= self.max_records:
                return None
            self._check_briefing(item.record)
            while len(self._read) > KEPT:
                self._read.popitem(last=False)
        if key not in self._read:
            return None  # not stored as its briefing's record (no passages): audit's reading stands
        self._read.move_to_end(key)
        return self._read[key]

    def _check_briefing(self, record: Record) -> None:
        """Check of the record's briefing (its file of its day), accepted, re-run as of its day:
        its items in the order they were stored, by one checker, so the token vectors check gave
        an item's candidates are there for the next item's, as in one check of the briefing."""
        own = self._own_briefing(record)
        checker = self._make()
        for item in _loaded(self.store, own, self.config.judge):
            self.searched += 1
            flt = check_filter(self.store, item.record, item.record.date, [r.id for r in own])
            found = {k: e for k, e in checker.candidates(item, flt).items() if k != item.record.id}
            checker.with_tokens([item])  # check's item has them: so its nearest are aligned
            checker.with_tokens(to_align(item, list(found.values()), self.config.aligned_candidates))
            matches = dict(zip(found, checker.compared(item, found), strict=True))
            self._read[item.record.id] = (item, found, matches, checker)

    def _own_briefing(self, record: Record) -> list[Record]:
        """The records of ``record``'s own file of its day, in the order they were stored: check
        of that briefing, accepted, leaves them out as resubmitted."""
        file = self.store.column_of_ids([record.id], "file").get(record.id)
        if record.date is None or file is None:
            return [record]
        day = self.store.filter_rowids(SearchFilter(since=record.date, until=record.date)) or []
        stored = self.store.by_rowids(day)
        files = self.store.column_of_ids([r.id for r in stored.values()], "file")
        return [r for _, r in sorted(stored.items()) if files.get(r.id) == file] or [record]


def _loaded(store: Store, records: list[Record], judge: str | None) -> list[Embedded]:
    """The records as check loads its candidates: passage vectors and the judge's vector."""
    rowids = store.rowids_of([r.id for r in records])
    rows = [rowids[r.id] for r in records if r.id in rowids]
    by_row, vectors = store.by_rowids(rows), store.passage_vectors(rows)
    judged = store.judge_vectors(by_row, judge) if judge is not None else {}
    return [Embedded(by_row[r], vectors[r], judge=judged.get(r)) for r in rows if r in by_row and r in vectors]
