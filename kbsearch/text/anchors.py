"""A writer's note that an item was anchored on an earlier day: "9-16锚定",
"8-28 已记", "(jay 9-22 已锚定)", "2026-09-16 首次锚入".

An id or a name written with such a note points at an item the team already
holds. Whether the record continues that item ("9-16锚定（tom，arXiv:2510.09665）"
in an LMCache release note) or only sets itself beside it ("与 TriAttention
（9-17 锚定）叠加" in a new method's note) the note does not say, so an id it
carries is neither the record's subject nor a bare citation: the rules weigh
the rest (``dedupe.rules``, ``dedupe.named_systems``).
"""

from __future__ import annotations

import re

from kbsearch.text.ids import extract_arxiv_ids

EARLIER_DAY_NOTE = r"\d{1,2}\s*[-/月]\s*\d{1,2}\s*日?\s*(?:已|首次)?(?:锚定|锚入|已锚|记|入库)"
"""The note itself, a pattern to build on (no groups)."""

_NOTE = re.compile(EARLIER_DAY_NOTE)
_BRACKETED = re.compile(r"[（(][^（()）\n]*[）)]")
_ID_BEFORE = re.compile(r"(?:arxiv\s*[:：]?\s*)?\d{4}\.\d{4,5}(?:v\d+)?\s*$", re.IGNORECASE)


def has_earlier_day_note(text: str) -> bool:
    """Whether ``text`` writes an earlier day's note anywhere: a pattern built on
    ``EARLIER_DAY_NOTE`` (which has no lookaround) matches nowhere in a text without one."""
    return _NOTE.search(text) is not None


def anchored_ids(text: str) -> set[str]:
    """The arXiv ids ``text`` writes with an earlier day's note: in the note's own
    brackets, in brackets right after the note, or right before brackets holding it."""
    found: set[str] = set()
    for group in _BRACKETED.finditer(text):
        inside = group.group(0)
        before = text[max(0, group.start() - 24) : group.start()]
        if _NOTE.search(inside):
            found.update(extract_arxiv_ids(inside))
            if (id_before := _ID_BEFORE.search(before)) is not None:
                found.update(extract_arxiv_ids(id_before.group(0)))
        elif re.search(rf"{EARLIER_DAY_NOTE}\s*$", before):
            found.update(extract_arxiv_ids(inside))
    return found
