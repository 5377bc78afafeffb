"""Audit's "in doc": a living-doc section holds an item only when it names the item itself.

``finer.section_on_item`` finds a section's word on an item by a rare coined name of the
item's title or by a copy of one of its claims. Read alone, either lets a section on the
item's field hold it: "Sable-70B 进入 OpenArena 排行榜" was held by a section on the
OpenArena leaderboard that never mentions Sable ("the section names OpenArena"), and a
release of Wren-1.5B by a section on another model whose line "Apache-2.0 许可" it copied
(probe 34). A leaderboard, a licence, a unit (FLOP) or a category (GPAI) is a term of the
field the section shares with the item, not the item.

So, when the item's title names its subject (``subject_names``: the name it leads with, as
``finer.names_about`` reads it, not one it sets the item on, and any model it names by its
size), the section must name it: anywhere beside a name ``section_on_item`` found, in its
heading or the copied line's entry beside a copy; the reason then names the title's leading one
("the section names FMAA", not "names FLOP"). A title naming no such name keeps the reading
of ``section_on_item``. Audit's clusters and check's "held by" read this (``doc_holding``):
check's evidence for a claim (``finer.item_sentences``) is unchanged.

A role (CEO, CTO, VP) or a business term (IPO, ARR, Q3) is written in capitals like a name but
names no one: "Tessellate CEO Dana Okafor steps down" is on Tessellate and its people, and a
section saying who the CEO is shares only the word (probe 37: "the section names CEO" flagged the
CEO change as seen before). Such a word is never a subject, and a section found by it alone
(``section_on_item`` read the title's role as its rare name) does not hold the item.

A copied claim is one claim, not the item: a briefing restating the doc's date or fine beside
news of its own ("本条新增合规模板") is not seen before, so a section holding an item by a copy
alone raises no "claimed new" flag (``audit_flags.claimed_new_flags``, ``COPIED``).
"""

from __future__ import annotations

import re

from kbsearch.dedupe.finer import COPIED, names_about
from kbsearch.dedupe.names import holds_word
from kbsearch.dedupe.platforms import platform_names, title_names
from kbsearch.records import Record

_SIZED = re.compile(r"(?<![A-Za-z0-9])([A-Z][A-Za-z]+)(?:-[A-Za-z0-9.]+)*-\d+(?:\.\d+)?[BbMmKkTt](?![A-Za-z0-9])")
"""A model named by its family and size ("Sable-70B", "Wren-1.5B", "Marrow-2-13B"): the
family is its name (the name readers see only the size, "70b", there)."""


_ROLE = re.compile(
    r"c[etfopmsirdax]o|caio|chro|[es]?vp|gm|ipo|esop|arr|mrr|kpi|okr|hr|q[1-4]|h[12]|fy\d{2,4}",
)
"""A role (CEO, CTO, CAIO, VP, GM) or a business term (IPO, ARR, Q3, FY26), lower-cased: words a
title writes in capitals that name no company, person or product."""


def subject_names(title: str, coined: frozenset[str] = frozenset()) -> frozenset[str]:
    """The names, lower-cased, a section must name to hold the title's item: the one the title
    leads with of its systems (``platforms.title_names``) and rare coined names, as
    ``finer.names_about`` keeps them, less those it sets the item on or does it to
    (``platforms.platform_names``), and every sized model it names. "PagedRadix 前缀树与分页 KV"
    is PagedRadix, not KV; "OpenArena corrects Sable-70B's Elo" is news on Sable-70B too: a
    model named by its size is the artifact the news is on."""
    sized = frozenset(m.group(1).lower() for m in _SIZED.finditer(title))
    named = frozenset(n for n in _named(title, sized, coined) if not _ROLE.fullmatch(n))
    if not named:
        return named
    lower = title.lower()
    lead = min(named, key=lambda n: (lower.find(n) % (len(lower) + 1), n))
    return frozenset({lead}) | (sized & named)


def _named(title: str, sized: frozenset[str], coined: frozenset[str]) -> frozenset[str]:
    return names_about(title, title_names(title) | sized | coined) - platform_names(title)


def holding_reason(item: Record, section: Record, cut: Record, reason: str, coined: frozenset[str]) -> str | None:
    """``reason`` (``section_on_item``'s, for the entries ``cut``) when the section names every
    subject name of the item's title (``subject_names``), else None: anywhere in it beside a
    name ``section_on_item`` found (a leaderboard's section with a line on the model holds
    it), in its heading or the copied line's entry beside a copy. A name's reason names the
    title's leading one; ``reason`` is kept as it is when the title names none."""
    names = subject_names(item.title, coined)
    if not names:
        # A title whose only names are roles names no subject: a section found by its role holds nothing.
        roles_only = reason != COPIED and bool(_named(item.title, frozenset(), coined))
        return None if roles_only else reason
    written = f"{section.title}\n{cut.text if reason == COPIED else section.text}"
    said = written.lower()
    if not all(holds_word(said, name) for name in names):
        return None
    if reason == COPIED:
        return reason
    title = item.title.lower()
    lead = min(names, key=lambda n: (title.find(n) % (len(title) + 1), n))
    at = said.find(lead)
    return f"the section names {written[at : at + len(lead)]}"  # the name as the section writes it
