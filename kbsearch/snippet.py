"""Snippets: a window of a record's text with the query's terms marked.

A snippet is data (a list of spans, each matched or not), never a markup
string: the CLI and the TUI turn the spans into styled text, so brackets,
tags or escape codes in a record can never be read as formatting.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

SNIPPET_CHARS = 160
# Text kept before the first match, so that a snippet starts with some context.
LEAD_CHARS = 24
ELLIPSIS = "…"


class Span(BaseModel):
    """A piece of snippet text; ``match`` marks a query term."""

    text: str
    match: bool = False


def make_snippet(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> list[Span]:
    """The ``width``-character window of ``text`` holding the most term matches.

    Whitespace is collapsed first, so a snippet is one line. Without a match the
    window is the start of the text, with nothing marked.
    """
    flat = " ".join(text.split())
    matches = _match_intervals(flat, terms)
    start = _best_window(matches, width, len(flat))
    end = min(len(flat), start + width)
    spans = [Span(text=ELLIPSIS)] if start > 0 else []
    cursor = start
    for lo, hi in matches:
        lo, hi = max(lo, start), min(hi, end)
        if lo >= hi:
            continue
        if lo > cursor:
            spans.append(Span(text=flat[cursor:lo]))
        spans.append(Span(text=flat[lo:hi], match=True))
        cursor = hi
    if cursor < end:
        spans.append(Span(text=flat[cursor:end]))
    if end < len(flat):
        spans.append(Span(text=ELLIPSIS))
    return spans


def _match_intervals(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """Where any term occurs (case-insensitively), overlapping hits merged.

    One pattern tries every term at every position (a lookahead consumes
    nothing), so overlapping hits such as the trigrams of a Chinese phrase are
    all found; longer terms are tried first.
    """
    wanted = sorted({t for t in terms if t}, key=len, reverse=True)
    if not wanted:
        return []
    pattern = re.compile("(?=(" + "|".join(map(re.escape, wanted)) + "))", re.IGNORECASE)
    merged: list[tuple[int, int]] = []
    for found in pattern.finditer(text):
        lo, hi = found.start(), found.start() + len(found.group(1))
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def _best_window(matches: list[tuple[int, int]], width: int, size: int) -> int:
    """Start of the window that covers the most matched characters."""
    best_start, best_cover = 0, -1
    for lo, _ in matches:
        start = max(0, min(lo - LEAD_CHARS, size - width))
        cover = sum(min(hi, start + width) - max(l2, start) for l2, hi in matches if l2 < start + width and hi > start)
        if cover > best_cover:
            best_start, best_cover = start, cover
    return best_start
