"""Flags on what a writer calls new: its own id table, or the knowledge base, knew it earlier."""

from __future__ import annotations

import datetime as dt
import re
import sys
from typing import NamedTuple

from kbsearch.dedupe.day_order import day_order
from kbsearch.dedupe.results import Flag, FlagKind, Match
from kbsearch.records import IdMention, Kind, Record
from kbsearch.store import SearchFilter, Store

# Words by which a writer claims an item is new today.
NEW_MARKERS = re.compile(r"首次锚入|首次|本次新增|新增|净增|\bnew\b|\bfirst\b", re.IGNORECASE)


def seen_order(
    date: dt.date | None, kind: Kind, instance: str | None, arrival: int | None = None
) -> tuple[bool, dt.date, bool, bool, bool, int, str]:
    """Who was first: the earliest day (undated last); on one day a living doc's section
    after the rest (its date is its last update, not when the section was written), a
    writer's record before an unattributed card, then the record stored first
    (``arrival``, its row id: the gate called the later one a repeat of it; None, not
    stored, after every stored one), only then writers by name (probe 14: one day's
    first went to the alphabetically first writer). ``audit``'s roster ranks so."""
    return (
        date is None,
        date or dt.date.max,
        kind is Kind.doc_section,
        instance is None,
        arrival is None,
        arrival or 0,
        instance or "",
    )


def table_flags(
    store: Store, mentions: list[IdMention], known: SearchFilter, signed_at: str | None = None
) -> list[Flag]:
    """Ids a briefing's own table calls new although the table, or the records ``known`` lets
    through (never the briefing's own), knew them earlier: on an earlier day, or on the table's
    day by another writer who came first (``TableTime``; ``signed_at``: the briefing's signing
    time, for a check reading it before it is stored)."""
    return [flag for mention in mentions for flag in row_flags(store, mention, mentions, known, signed_at)]


def row_flags(
    store: Store, mention: IdMention, table: list[IdMention], known: SearchFilter, signed_at: str | None = None
) -> list[Flag]:
    """``table_flags`` of one row of ``table``: so a caller reading several tables at once can
    say which table's row each flag is on."""
    if not (mention.claims_new and mention.arxiv_id):
        return []
    flags = [
        Flag(
            kind=FlagKind.claimed_new_seen_before,
            arxiv_id=mention.arxiv_id,
            anchored_on=earlier.anchored_on,
            message=f"arXiv {mention.arxiv_id} is listed as {mention.status!r} and also as "
            f"{earlier.status!r} (anchored on {earlier.anchored_on}) in the same table",
        )
        for earlier in table
        if earlier.arxiv_id == mention.arxiv_id and earlier.anchored_on
    ]
    return flags + _kb_flag(store, mention, known, signed_at)


def _kb_flag(store: Store, mention: IdMention, known: SearchFilter, signed_at: str | None) -> list[Flag]:
    if mention.arxiv_id is None or mention.date is None:
        return []
    rowids = store.restrict(store.rowids_with_arxiv([mention.arxiv_id], role="subject"), known)
    stored = store.by_rowids(rowids)
    day = mention.date
    signed = None
    if any(_of_another_writer(mention, r) for r in stored.values()):  # the table's own time, read only then
        signed = table_time(store, mention, signed_at)
    earlier = sorted(
        (
            (rowid, r)
            for rowid, r in stored.items()
            if r.date and (r.date < day or (_of_another_writer(mention, r) and _first_on_day(signed, r, rowid)))
        ),
        key=lambda pair: (*seen_order(pair[1].date, pair[1].kind, pair[1].instance, pair[0]), pair[1].id),
    )
    if not earlier:
        return []
    first = earlier[0][1]
    when = (
        f"earlier on {day} (signed {first.signed_at})" if first.date == day and first.signed_at else f"on {first.date}"
    )
    message = (
        f"arXiv {mention.arxiv_id} is listed as {mention.status!r} but "
        f"{first.instance or 'a record'} had it {when} ({first.id})"
    )
    return [Flag.seen_before(first, message, arxiv_id=mention.arxiv_id)]


class TableTime(NamedTuple):
    """When a table's briefing came: its signing time ("HH:MM", None when unsigned) and the row
    id of its first stored record (None: not stored yet, as in the check reading it)."""

    signed_at: str | None
    arrival: int | None


def table_time(store: Store, mention: IdMention, signed_at: str | None = None) -> TableTime:
    """``TableTime`` of the briefing holding ``mention``: its file's stored records of its day
    (none before a check stores them: then ``signed_at``, the time the check read)."""
    if mention.source is None:
        return TableTime(signed_at, None)
    day = SearchFilter(instance=mention.instance, since=mention.date, until=mention.date)
    rows = store.filter_rowids(day) or []
    own = {rowid: r for rowid, r in store.by_rowids(rows).items() if r.source == mention.source}
    signed = next((r.signed_at for r in own.values() if r.signed_at), signed_at)
    return TableTime(signed, min(own, default=None))


def _of_another_writer(mention: IdMention, record: Record) -> bool:
    return (
        record.date == mention.date
        and record.kind is not Kind.doc_section
        and record.instance is not None
        and record.instance != mention.instance
    )


def _first_on_day(table: TableTime | None, record: Record, rowid: int) -> bool:
    """Whether another writer's record of the table's day came first (``day_order``: by signing
    time when both give one, else the record stored first), the rule audit's clusters and check's
    first seen read (probe 39: ben's row signed 20:30, ada's table of the day calling it new at 21:40)."""
    if table is None:
        return False
    ours = (False, table.signed_at, sys.maxsize if table.arrival is None else table.arrival)
    return day_order([ours, (True, record.signed_at, rowid)])[0]


def item_flags(record: Record, first: Match | None, held: Match | None = None) -> list[Flag]:
    """A seen-before flag on an item its writer marks new, first seen earlier or by another
    writer; naming the living-doc section that ``held`` it before then (``first`` itself: the
    section listing its paper, when no record is the item)."""
    marker = record.anchor or ""
    if first is None or not NEW_MARKERS.search(marker):
        return []
    earlier = first.date is not None and (record.date is None or first.date < record.date)
    other = first.instance is not None and first.instance != record.instance
    if not (earlier or other):
        return []
    also = f", {held_words(held.id, held.date)}" if held else ""
    if held is first:  # no record is the item: a section listing its paper held it (``listed_in_doc``)
        also = f" (the section lists arXiv {', '.join(first.shared_ids)})"
    return [Flag.seen_before(first, f"marked {marker!r} but {first_seen_words(first)}{also}")]


def listed_in_doc(record: Record, matches: list[Match]) -> Match | None:
    """Of an item no record is the same item as, the earliest living-doc section listing its
    arXiv id dated before it (``matches`` dated by ``section_since``): it held the item first,
    as audit's cluster says "in doc" (probe 26: PrismQuant, 首次锚入 on 11-17, listed by
    doc/serving §2.3 since 11-15, got no flag from check and one from audit)."""
    if record.date is None:
        return None
    listing = [m for m in matches if m.kind is Kind.doc_section and m.shared_ids and m.date and m.date < record.date]
    return min(listing, key=lambda m: (m.date or record.date, m.id), default=None)


def held_words(section_id: str, day: dt.date | None) -> str:
    """Which living-doc section held an item before its first seen record, in words:
    ``held by doc/inference §1.3 since 2026-11-01``."""
    return f"held by {section_id.replace('#', ' ', 1)} since {day or 'an unknown day'}"


def first_seen_words(first: Match) -> str:
    """Who had it first, in words: a writer (``first seen by jay on 2026-09-17 (id)``), or a
    record no writer wrote, by name: ``first in doc/inference §1.1 on 2026-09-18``, ``first
    seen in card/1422 on 2026-09-19`` (not "by unknown")."""
    day = first.date or "an unknown day"
    if first.instance:
        return f"first seen by {first.instance} on {day} ({first.id})"
    if first.kind is Kind.doc_section:
        return f"first in {first.id.replace('#', ' ', 1)} on {day}"
    return f"first seen in {first.id} on {day}"
