"""A living-doc section as a check of day D reads it: changed after D, with its text of ``first_date``.

A section is dated by the day its text last changed (``ingest.section_dates``), so a check
as of an earlier day D leaves its current text out (written after D: no evidence). Before
this module it left the section out altogether, though it existed on D: re-checking day 2
after the day-3 fold no longer saw what the doc held on day 2, and a claim the doc stated
then came back NEW (probe 23). So a section dated after D whose ``first_date`` is D or
earlier is read with its ``first_text`` (what it said that day, dated ``first_date``); one
first stored after D stays out. The text between the first day and D, when it changed more
than once, is not kept: the first text is what is known to have been there by D.

Its first text's vectors are not stored: they are embedded once per check and day, only
for the sections changed after D (a re-check of a past day; a check of today's items has
none), a few passages each. Candidates among them are chosen as the store's search would:
nearer to one of the item's searched vectors than the k-th record it found, or sharing an
arXiv id; a claim's passages are merged into its nearest by cosine.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

import kbsearch.runtime.timings as timings
from kbsearch.dedupe.passage_reader import PassageHit
from kbsearch.dedupe.results import ClaimStatus, Match
from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.ties import nearest_first
from kbsearch.embed import Encoder
from kbsearch.filters import SearchFilter
from kbsearch.records import Kind, Record
from kbsearch.store import Store
from kbsearch.text.ids import extract_arxiv_ids

Searched = tuple[np.ndarray, int, list[float]]
"""One of an item's candidate searches: its vector, its k, and the scores of the records it found."""


def as_first_written(section: Record) -> Record:
    """The section as it was on its ``first_date``: its first text, dated that day."""
    assert section.first_text is not None
    ids = extract_arxiv_ids(f"{section.title}\n{section.first_text}")
    cited = [i for i in section.cited_ids if i in ids]
    return section.model_copy(
        update={
            "text": section.first_text,
            "date": section.first_date,
            "first_date": None,
            "first_text": None,
            "arxiv_ids": [i for i in ids if i not in cited],
            "cited_ids": cited,
        }
    )


class SectionsAsOf:
    """The sections changed after a check's day that existed on it, read as first written."""

    def __init__(self, store: Store, encoder: Encoder, judge: Encoder | None) -> None:
        self.store, self.encoder, self.judge = store, encoder, judge
        self._days: dict[dt.date, dict[str, Embedded]] = {}

    def of(self, flt: SearchFilter) -> list[Embedded]:
        """Those of the filter's day (``not_after``), but its excluded ids; none without a day."""
        day = flt.not_after
        if day is None:
            return []
        if day not in self._days:
            self._days[day] = self._read(day)
        excluded = set(flt.exclude_ids)
        return [e for section_id, e in self._days[day].items() if section_id not in excluded]

    def _read(self, day: dt.date) -> dict[str, Embedded]:
        later = self.store.filter_rowids(SearchFilter(kinds=[Kind.doc_section], since=day + dt.timedelta(days=1)))
        stored = self.store.by_rowids(later or []).values()
        then = [
            as_first_written(r)
            for r in stored
            if r.first_date is not None and r.first_text is not None and r.first_date <= day
        ]
        if not then:
            return {}
        with timings.phase("sections as of"):
            passages = [r.passages() for r in then]
            vectors = self.encoder.encode([p for each in passages for p in each])
            judged = list(self.judge.encode([r.embed_text() for r in then])) if self.judge else [None] * len(then)
        out, start = {}, 0
        for record, own, judge in zip(then, passages, judged, strict=True):
            out[record.id] = Embedded(record, vectors[start : start + len(own)], own, judge=judge)
            start += len(own)
        return out

    def candidates(self, item: Embedded, flt: SearchFilter, searched: list[Searched]) -> dict[str, Embedded]:
        """The sections as first written that the item's searches would have found, or sharing an id."""
        ids = set(item.record.arxiv_ids + item.record.cited_ids)
        found = {}
        for section in self.of(flt):
            near = any(
                len(scores) < k or float(np.max(section.vectors @ vector)) >= min(scores)
                for vector, k, scores in searched
            )
            if near or ids & set(section.record.arxiv_ids + section.record.cited_ids):
                found[section.record.id] = section
        return found

    def claim_hits(self, hits: list[PassageHit], flt: SearchFilter, vector: np.ndarray, k: int) -> list[PassageHit]:
        """A claim's nearest passages (best first), the sections' as first written among them."""
        sections = self.of(flt)
        if not sections:
            return hits
        extra = []
        for section in sections:
            cosines = section.vectors @ vector
            best = int(np.argmax(cosines))
            extra.append(PassageHit(section, best, float(cosines[best])))
        return nearest_first([*hits, *extra])[:k]

    def marked(self, flt: SearchFilter, matches: list[Match], claims: list[ClaimStatus]) -> None:
        """Say on each match and claim read from a section's first text that it was (in place)."""
        ids = {e.record.id for e in self.of(flt)}
        if not ids:
            return
        for n, match in enumerate(matches):
            if match.id in ids:
                matches[n] = match.model_copy(update={"first_text": True})
        for n, claim in enumerate(claims):
            if claim.best_id in ids:
                claims[n] = claim.model_copy(update={"best_first_text": True})
