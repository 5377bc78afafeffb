"""Snippets: a window of a record's text with the query's terms marked.

A snippet is data (a list of spans, each matched or not), never a markup
string: the CLI and the TUI turn the spans into styled text, so brackets,
tags or escape codes in a record can never be read as formatting.

The work is bounded whatever the record: only the head of its text is read
(``SCAN_CHARS``), and the best window is found in one pass over the matches.
A record whose 要点 is one line of megabytes costs a search no more than
one of a few pages.
"""

from __future__ import annotations

import bisect
import functools
import re

from pydantic import BaseModel

from kbsearch.text.figures import figure_spans
from kbsearch.text.folding import fold, fold_offsets

SNIPPET_CHARS = 160
# Text kept before the first match, so that a snippet starts with some context.
LEAD_CHARS = 24
ELLIPSIS = "…"
SCAN_CHARS = 20_000
"""Characters of a text searched for the window: ten times what is embedded
(``records.EMBED_CHARS``) and more than any briefing item or doc section holds."""


class Span(BaseModel):
    """A piece of snippet text; ``match`` marks a query term."""

    text: str
    match: bool = False


def make_snippet(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> list[Span]:
    """The ``width``-character window of ``text`` holding the most term matches.

    Whitespace is collapsed first, so a snippet is one line. Without a match the
    window is the start of the text, with nothing marked. Only the first
    ``SCAN_CHARS`` characters are read.
    """
    cut = len(text) > SCAN_CHARS
    flat = " ".join(_HEADING_LINE.sub(_as_label, text[:SCAN_CHARS]).split())
    matches = _match_intervals(flat, terms)
    start = _best_window(matches, width, len(flat))
    end = min(len(flat), start + width)
    spans = [Span(text=ELLIPSIS)] if start > 0 else []
    cursor = start
    # Only the matches that reach into the window: the first whose end is past its start, onwards.
    first = bisect.bisect_right([hi for _, hi in matches], start)
    for lo, hi in matches[first:]:
        if lo >= end:
            break
        lo, hi = max(lo, start), min(hi, end)
        if lo > cursor:
            spans.append(Span(text=flat[cursor:lo]))
        spans.append(Span(text=flat[lo:hi], match=True))
        cursor = hi
    if cursor < end:
        spans.append(Span(text=flat[cursor:end]))
    if end < len(flat) or cut:
        spans.append(Span(text=ELLIPSIS))
    return spans


# A markdown heading ("## 问题") labels the text after it. On one line its marks
# are noise ("…0.71。 ## 问题 RAG 段落…"), so it reads as a label there ("问题: RAG 段落").
_HEADING_LINE = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t#]*$", re.MULTILINE)
_ENDS_A_LABEL = tuple(":：.。!?！？")


def _as_label(heading: re.Match[str]) -> str:
    title = heading.group(1)
    return title if not title or title.endswith(_ENDS_A_LABEL) else f"{title}:"


def _match_intervals(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """Where any term occurs in ``text``, compared folded as the search
    compares them (``kbsearch.text.folding``: c2kv marks C²KV; a figure in
    any of its spellings, ``kbsearch.text.figures``: 10.7x marks 10.7 倍),
    overlapping hits merged.

    One pattern tries every term at every position (a lookahead consumes
    nothing), so overlapping hits such as the trigrams of a Chinese phrase are
    all found; longer terms are tried first.
    """
    pattern = _terms_pattern(tuple(terms))
    if pattern is None:
        return []
    folded, origin = fold_offsets(text)
    hits = [(found.start(), found.start() + len(found.group(1))) for found in pattern.finditer(folded)]
    # A figure term (10.7x) marks the figure in the record's own spelling (10.7×, 10.7 倍).
    figures = {fold(t) for t in terms if t[:1].isdigit()}
    if figures:
        hits = sorted(hits + [(lo, hi) for lo, hi, spelling in figure_spans(folded) if spelling in figures])
    merged: list[tuple[int, int]] = []
    for start, end in hits:
        # back to the characters of ``text`` that the folded match came from
        lo, hi = origin[start], origin[end - 1] + 1
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


@functools.lru_cache(maxsize=32)
def _terms_pattern(terms: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for the terms, folded, longer first; made once per search
    (every hit's snippet asks for it), not once per snippet."""
    wanted = sorted({fold(t) for t in terms if t}, key=len, reverse=True)
    return re.compile("(?=(" + "|".join(map(re.escape, wanted)) + "))") if wanted else None


def _best_window(matches: list[tuple[int, int]], width: int, size: int) -> int:
    """Start of the window that covers the most matched characters.

    A window is tried at each match (``LEAD_CHARS`` before it); the earliest of
    the best wins. ``matches`` are sorted and disjoint, so the window starts
    only move right: two cursors and running sums of the matched lengths give
    each window's cover in constant time, one pass in all.
    """
    before = [0]  # before[i]: matched characters in matches[:i]
    for lo, hi in matches:
        before.append(before[-1] + hi - lo)
    best_start, best_cover = 0, -1
    first = last = 0  # matches[first:last] are those overlapping the window
    for lo, _ in matches:
        start = max(0, min(lo - LEAD_CHARS, size - width))
        stop = start + width
        while first < len(matches) and matches[first][1] <= start:
            first += 1
        last = max(last, first)
        while last < len(matches) and matches[last][0] < stop:
            last += 1
        cover = 0
        if first < last:
            # Every match inside counts whole, except where the first and last stick out.
            cover = before[last] - before[first]
            cover -= max(0, start - matches[first][0]) + max(0, matches[last - 1][1] - stop)
        if cover > best_cover:
            best_start, best_cover = start, cover
    return best_start
