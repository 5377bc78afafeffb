"""What a record only cites as context: another item written with an earlier day's note.

A writer points at an item stored on an earlier day by its name, often with the figure it was
stored with: "Brindle (53.1%, 11-03锚定)", "Harrow（见 11-03）", "与 TriAttention（9-17 锚定）叠加".
The record is about something else; the cited item's name and figures are context, so they are
neither a mention of that item (the names rule, the subjects and platforms rules) nor a name or
number the two records share (the learned features). Probe 32: a new benchmark split whose key
point cited a known agent's score "(53.1% …, 11-03锚定)" was taken for that score's record
(0.9999), sharing its name and its figure.

``named_systems.cited_names`` reads the coined names of such citations (TriAttention); this
reads every name in them, plain words too (Brindle), and the figures, and leaves out any that
the record also writes outside a citation: a record that says "Brindle now scores 53.1%" besides
citing an earlier day says it.
"""

from __future__ import annotations

import re

from kbsearch.dedupe.features import latin_names
from kbsearch.text.anchors import EARLIER_DAY_NOTE
from kbsearch.text.plain_names import words_mentioned

# The note, or a pointer to an earlier day ("见 11-03", "see 11-03"), inside a bracket after the name.
_NOTE = rf"(?:{EARLIER_DAY_NOTE}|(?:见|参见|(?i:see))\s*\d{{1,2}}\s*[-/月]\s*\d{{1,2}}\s*日?)"
_HAS_NOTE = re.compile(_NOTE)
_CITATION = re.compile(rf"(\S{{1,40}}?)\s*([（(][^（()）\n]{{0,40}}?{_NOTE}[^（()）\n]{{0,20}}[）)])")
# The cited name: the last Latin word before the bracket ("Brindle" of "优于Brindle", "Brindle's").
_LAST_WORD = re.compile(r"[A-Za-z][A-Za-z0-9²³+\-]*(?:['’]s)?$")


def _spans(text: str) -> list[tuple[int, int, int]]:
    """Each citation: where the name before its bracket starts, where the bracket starts and ends."""
    found: list[tuple[int, int, int]] = []
    if not _HAS_NOTE.search(text):
        return found  # most texts cite nothing: the lazy name before a bracket tries every word
    for m in _CITATION.finditer(text):
        head = _LAST_WORD.search(m.group(1))
        found.append((m.start(1) + head.start() if head else m.start(2), m.start(2), m.end(2)))
    return found


def without_citations(text: str) -> str:
    """``text`` with each citation's bracket (its note and figures) blanked: what it states."""
    for _, start, end in reversed(_spans(text)):
        text = f"{text[:start]} {text[end:]}"
    return text


def names_written(text: str) -> set[str]:
    """Every name ``text`` writes, lower-cased: coined ones and plain words (``words_mentioned``)."""
    return latin_names(text) | set(words_mentioned(text))


def cited_only(text: str) -> frozenset[str]:
    """The names, lower-cased, that ``text`` writes only in citations of an earlier day's item:
    the name before each bracket and those in it, none written anywhere else."""
    spans = _spans(text)
    if not spans:
        return frozenset()
    cited = {name for head, _, end in spans for name in names_written(text[head:end])}
    rest, last = [], 0
    for head, _, end in spans:
        rest.append(text[last:head])
        last = end
    rest.append(text[last:])
    return frozenset(cited - names_written(" ".join(rest)))
