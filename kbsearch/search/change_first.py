"""A query about a correction or a change finds the record telling it before the item's others.

An item is reported again when a figure of it changes: "Verdance v2 corrects its score: revised
from 91.2 to 89.7". Its first report says more about the item and shares more of a query's topic
words, so it finds such a query better than its correction does, and the correction is listed
below it (the records of one item rank together: ``search.items``). Yet a query that names the
correction or the change ("score lowered after removing overlapping items", "下调", "revised") asks
for that record: the first report holds the figure before the change, the one the user asks about
no longer. So when the query names a change, a record of one of the best hits' items that tells
a change (``text.told_changes``, or a word of correction in its title or text) is listed right above
that hit, if the hit itself tells none. Only records of one item are reordered, and only for such a
query: a record of another item, or a query naming no change, ranks as before.

One other link tells a correction is the one asked for: the figure the query gives. "spoof rejection
corrected to 97.9%" asks for the record stating 97.9% as a correction, not for the first report
stating 98.7%, though the two are not read as one item (its English title "Vocalis adds consent
verification …" leads with no name). So for such a query that gives figures, one of the best hits
telling a change and stating every one of them is listed right above the better hits right above it
that tell no change and state fewer of them. A record holding the figure but telling no change, or
one telling a change without the figure, is no such record.

The query's words are those of a revision of a reported fact, not of every change: "reduces",
"improves", "cut" describe most results (a method's summary), and "raised" most funding rounds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, TypeVar

from kbsearch.search.items import same_item
from kbsearch.store import SearchFilter, Store
from kbsearch.text.textsim import substantive_numbers
from kbsearch.text.told_changes import told_changes

# A revision of a reported fact, in the query or in a record: corrected, revised, restated, amended, an erratum;
# a figure adjusted down or up (下调, 上调, 下修, 调低), corrected (更正, 修正, 订正, 勘误).
# Error correction, self-correction, bias correction and 误差修正项 name a method, not a revision (211 of the 44,139
# dev digest summaries, methods and results held one before these were left out).
_REVISION = re.compile(
    r"(?<!error[ -])(?<!self[ -])(?<!bias[ -])\b(?:correct(?:s|ed|ion|ions)|revis(?:es|ed|ion|ions)"
    r"|restat(?:es|ed|ement)|amend(?:s|ed|ment)|errat(?:um|a)|marked\s+down|marked\s+up|walked\s+back)\b"
    r"|下调(?!整)|上调(?!整)|下修|上修|调低|调高|更正|修正(?:后|为|至)|订正|勘误",
    re.IGNORECASE,
)
# A record's text read for its change: a correction says so at its start.
TEXT_CHARS = 4000
# Above the hit it is listed before, by less than any printed score tells.
STEP = 1e-4


class Row(Protocol):
    rowid: int
    score: float


R = TypeVar("R", bound=Row)


def names_a_change(query: str) -> bool:
    """Whether ``query`` asks about a revision of a fact (module docstring)."""
    return _REVISION.search(query) is not None


def tells_a_change(title: str, text: str) -> bool:
    """Whether a record tells a change of a figure or value, or names itself a correction."""
    whole = f"{title}\n{text}"
    return _REVISION.search(whole) is not None or bool(told_changes(whole))


def change_first(store: Store, query: str, ranked: list[R], leaders: Sequence[Row], flt: SearchFilter) -> list[R]:
    """``ranked`` (best first) with, for a query naming a change, the best record of each of the
    ``leaders``' items that tells a change listed right above its leader when the leader tells none,
    and a leader telling a change that states every figure the query gives above the better leaders
    right above it that tell none and state fewer of them."""
    if not leaders or not names_a_change(query):
        return ranked
    moved = _item_change_first(store, ranked, leaders, flt)
    moved = _figured_change_first(store, substantive_numbers(query), ranked, leaders) or moved
    return sorted(ranked, key=lambda r: -r.score) if moved else ranked


def _item_change_first(store: Store, ranked: list[R], leaders: Sequence[Row], flt: SearchFilter) -> bool:
    """Lift each leader's item's best record telling a change right above the leader; whether one moved."""
    sibling_of = same_item(store, [r.rowid for r in leaders], flt)
    if not sibling_of:
        return False
    score = {r.rowid: r.score for r in ranked}
    heads = store.heads([*score.keys() & sibling_of.keys(), *(r.rowid for r in leaders)], TEXT_CHARS)
    told = {rowid for rowid, head in heads.items() if tells_a_change(head.title, head.text)}
    moved = False
    for row in ranked:  # best first: each leader's best record telling the change
        leader = sibling_of.get(row.rowid)
        if leader is None or leader in told or row.rowid not in told or leader not in score:
            continue
        if score[leader] >= row.score:
            row.score = score[leader] + STEP
            moved = True
        told.add(leader)  # one record a leader: its item's later ones stay in their order
    return moved


def _figured_change_first(store: Store, asked: set[str], ranked: list[R], leaders: Sequence[Row]) -> bool:
    """Lift the best leader telling a change and stating every figure ``asked`` right above the run of
    better leaders right above it that tell none and state fewer of them; whether it moved."""
    if not asked:
        return False
    rows = {r.rowid: r for r in ranked}
    heads = store.heads([r.rowid for r in leaders], TEXT_CHARS)
    told = {rowid for rowid, head in heads.items() if tells_a_change(head.title, head.text)}
    stated = {rowid: asked & substantive_numbers(f"{head.title}\n{head.text}") for rowid, head in heads.items()}
    for place, leader in enumerate(leaders):
        row = rows.get(leader.rowid)
        if row is None or leader.rowid not in told or stated.get(leader.rowid) != asked:
            continue
        passed = []
        for better in reversed(leaders[:place]):  # the run right above it, nearest first
            if better.rowid in told or better.rowid not in heads or stated[better.rowid] == asked:
                break
            passed += [rows[better.rowid].score] if better.rowid in rows else []
        if passed and max(passed) >= row.score:
            row.score = max(passed) + STEP
            return True
        return False  # the best such record only: a worse one stays below it
    return False
