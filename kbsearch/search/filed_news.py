"""News filed under a living-doc section is listed above that section.

A living-doc section states what the team knew when the doc was written: "BM25 and dense results are
fused with RRF", "the previous instance costs $21.50 an hour", "Halvard is a humanoid-robot maker".
An increment filed under it (its ``section`` field: ``§3.2``, ``retrieval.md §3.2``, ``§4.2 人形机器人厂商``)
is later news on that very subject: a learned per-query fusion, a price cut, a Series C. A query asking
for the news shares some of the section's words (its heading, its subject's names, and the query's own
language when the news is written in the other one), and the section, short and all on that subject,
often scores above the news it is the background of.

So an increment among the search's best ``LEADERS`` hits that is filed under a section ranked above it,
and dated on or after that section, is listed right above the section, which stays just below it as
the news's context. Four cases keep the section first: its own words hold the whole query (its heading
or its sentences typed as the query: the query asks for the section); it holds more of the figures the
query gives than the news does (``360 N·m, carries 20 kg`` asks for the section stating them, not for
the two humanoid launches filed under it that state neither; a figure is written alike in both languages,
so this holds across them, where the whole query in the section's words cannot); the news is no good hit
on its own (not among the best three); the section is dated after the news (it may hold it already).
Only the order moves: the news is lifted to just above the section's score, the section keeps its own.

The query's names are not weighed as its figures are: a name it gives is as often the subject the
section and its news share (``BM25`` in a query for a learned fusion filed under the RRF section).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol, TypeVar

from kbsearch.records import Kind, RecordHead
from kbsearch.search.change_first import STEP
from kbsearch.store import Store
from kbsearch.text.textsim import substantive_numbers

# The best hits that may be listed above a section they are filed under: as many as lift an item's records.
LEADERS = 3
# A section whose own words hold this share of the query's (idf-weighted) terms is what the query asks for.
HOLDS = 1.0
# A record's text read for the query's figures: sections and increments are short, a longer card says its
# figures early.
FIGURE_CHARS = 20_000

_NUMBER = re.compile(r"§\s*(\d+(?:\.\d+)*)")
_DOC_FILE = re.compile(r"([\w.-]+?)\.md\b")
_SECTION_ID = re.compile(r"doc/(.+)#§(\d+(?:\.\d+)*)")


class Row(Protocol):
    rowid: int
    score: float


R = TypeVar("R", bound=Row)


def filed_under(increment: RecordHead, section: RecordHead) -> bool:
    """Whether ``increment`` is filed under ``section`` (or a subsection of it): the doc it names (its
    ``X.md``, else its topic) is the section's doc, and its § number is the section's or starts with it."""
    where = _SECTION_ID.fullmatch(section.id)
    number = _NUMBER.search(increment.section or "")
    if where is None or number is None:
        return False
    named = _DOC_FILE.search(increment.section or "")
    doc = named.group(1) if named else increment.topic
    own, theirs = number.group(1).split("."), where.group(2).split(".")
    return doc == where.group(1) and own[: len(theirs)] == theirs


def news_first(store: Store, query: str, ranked: list[R], share: Callable[[list[int]], dict[int, float]]) -> list[R]:
    """``ranked`` (best first) with each increment among its first ``LEADERS`` that is filed under a
    living-doc section ranked above it, and dated on or after that section, listed right above it,
    unless the section's own words hold the whole query (``share``: row id → the share they hold)
    or it holds more of the figures ``query`` gives than the news does."""
    top = ranked[:LEADERS]
    heads = store.heads([r.rowid for r in top], 0)
    kinds = {h.kind for h in heads.values()}
    if Kind.increment not in kinds or Kind.doc_section not in kinds:
        return ranked
    held = share([r for r, h in heads.items() if h.kind is Kind.doc_section])
    heads = {r: h for r, h in heads.items() if held.get(r, 0.0) < HOLDS}  # a section asked for keeps its place
    figures = _query_figures(store, query, list(heads))
    lifted: list[tuple[R, float]] = []
    for place, row in enumerate(top):
        news = heads.get(row.rowid)
        if news is None or news.kind is not Kind.increment:
            continue
        above = [
            r.score
            for r in top[:place]
            if (h := heads.get(r.rowid)) is not None
            and _yields(news, h)
            and not _holds_more(figures, r.rowid, row.rowid)
        ]
        if above:
            lifted.append((row, max(above)))
    # Each by one more step than the next: the news keeps its own order, every item above the section.
    for steps, (row, section_score) in enumerate(reversed(lifted), start=1):
        row.score = max(row.score, section_score + steps * STEP)
    return sorted(ranked, key=lambda r: -r.score) if lifted else ranked


def _yields(news: RecordHead, section: RecordHead) -> bool:
    if section.kind is not Kind.doc_section or not filed_under(news, section):
        return False
    return news.date is None or section.date is None or news.date >= section.date


def _holds_more(figures: dict[int, set[str]], section: int, news: int) -> bool:
    """Whether the section states more of the query's figures than the news: the query asks for it."""
    return len(figures.get(section, ())) > len(figures.get(news, ()))


def _query_figures(store: Store, query: str, rowids: list[int]) -> dict[int, set[str]]:
    """Row id → the figures ``query`` gives (``substantive_numbers``: no year, date or lone digit) that the
    record's title and text hold; empty when the query gives none."""
    asked = substantive_numbers(query)
    if not asked:
        return {}
    heads = store.heads(rowids, FIGURE_CHARS)
    return {rowid: asked & substantive_numbers(f"{head.title}\n{head.text}") for rowid, head in heads.items()}
