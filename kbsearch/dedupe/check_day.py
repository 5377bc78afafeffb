"""What a check of an item reads as written before it: its day's records, not its day's doc
sections written after it, nor, when the input is stored, its day's records stored after it.

A record dated after the check's day (``--as-of``, else the item's own date) is no evidence
that the item repeats anything. On one day a living doc's section may come after the rest
(docs/dedupe.md, "first seen"): its date is the doc's last update, and an editor folds the
day's accepted items into it that evening. Re-checking an accepted briefing after the
evening's fold found its items DUPLICATE of the section they were folded into, first seen
there (probe 13), and a pipeline retrying ``check --accept && publish`` failed. So a section
dated the check's day is left out when it was written (ingested) no earlier than the item
itself was stored that day; a doc updated that day before the item came in, or an item
never stored, keeps the day's doc as evidence: a doc of day D holds what was accepted up
to D (a re-check of a briefing of the doc's day compared with none of the doc). A note
says how many sections of the day were left out, as for later ones.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.results import ItemResult
from kbsearch.dedupe.rules import Embedded, compare_all, one_item
from kbsearch.filters import SearchFilter
from kbsearch.records import Kind, Record
from kbsearch.store import Store


def check_filter(store: Store, item: Record, as_of: dt.date | None, resubmitted: list[str]) -> SearchFilter:
    """The records a check of ``item`` compares with: none of ``resubmitted`` (this very
    submission, accepted before), none dated after the check's day, no doc section
    dated it and, when the input is stored, none of its day stored after it
    (``stored_after``); undated records stay (a living doc stating no date)."""
    # A stored record under an item's id with other content (an earlier version, what a
    # reused file held yesterday) is the very record to compare with.
    day = as_of or item.date
    if day is None:
        return SearchFilter(exclude_ids=resubmitted)
    folded = [*resubmitted, *same_day_sections(store, day, item.id), *stored_after(store, item, day, resubmitted)]
    if store.has_records_after(day):
        return SearchFilter(not_after=day, exclude_ids=folded)
    return SearchFilter(exclude_ids=folded)  # nothing later: no filter to scan the index for


def same_day_sections(store: Store, day: dt.date, item_id: str) -> list[str]:
    """The ids of the living-doc sections dated ``day`` written no earlier than the item
    stored under ``item_id`` with the date ``day`` (an accepted item of that day, this
    content or an earlier one): folded in after it. None when no such item is stored: a
    doc of day D holds what was accepted up to D, this item not among it. Writes are
    timed to the second: a section written in the item's second counts as after it."""
    rowids = store.filter_rowids(SearchFilter(kinds=[Kind.doc_section], since=day, until=day))
    if not rowids:  # most days: no read at all, so a warm process's repeated check reads nothing
        return []
    stored = store.get(item_id)
    since = store.column_of_ids([item_id], "ingested_at").get(item_id) if stored and stored.date == day else None
    if since is None:
        return []
    ids = [record.id for record in store.by_rowids(rowids).values()]
    return sorted(i for i, at in store.column_of_ids(ids, "ingested_at").items() if at is not None and at >= since)


def stored_after(store: Store, item: Record, day: dt.date, resubmitted: list[str]) -> list[str]:
    """The ids of the records dated ``day`` stored after this input, when the input is
    itself stored (``resubmitted``) and ``item`` is of that day: written after it, as
    the records of later days are. Re-checking tom's accepted briefing as of its day
    found its items DUPLICATE of spark's copies accepted after it that day (probe 14).
    An input never stored has no known order against its day's records: they stay. When the
    item and a record of the day both give a signing time (``Record.signed_at``), the later
    signed is the later, as audit orders them (probe 28: vera, signed 09:10, loaded after tom's
    22:20, was DUPLICATE of tom on a re-check, and first to audit)."""
    if item.date != day or not resubmitted:
        return []
    own = store.rowids_of(resubmitted)
    if not own:
        return []
    arrived, mine = min(own.values()), set(own.values())
    days = [r for r in store.filter_rowids(SearchFilter(since=day, until=day)) or [] if r not in mine]
    if item.signed_at is None:
        later = [r for r in days if r > arrived]
        return sorted(head.id for head in store.heads(later, 0).values()) if later else []
    return sorted(r.id for at, r in store.by_rowids(days).items() if signed_after(item, r, at > arrived))


def signed_after(item: Record, other: Record, stored_after: bool) -> bool:
    """Whether ``other``, of ``item``'s day, came after it: the later signed when both give
    a time and the times differ, else the one stored after."""
    if item.signed_at and other.signed_at and item.signed_at != other.signed_at:
        return other.signed_at > item.signed_at
    return stored_after


def later_sections_note(store: Store, items: list[ItemResult], given: bool) -> list[str]:
    """Say how many living-doc sections dated after the check's day (the earliest of the
    items' as-of dates; ``given``: by ``--as-of``) were left out, when any were. A section
    is dated by the last change of its text (``ingest.section_dates``): re-checking an older
    briefing after the doc's update compares with none of the sections it changed, and a
    claim the doc held since before the briefing may come out NEW; a note tells why (probe 19).
    One count; and one for the sections of an item's own day left out as written after it
    (``same_day_sections``)."""
    own_days = [(i.id, day) for i in items if (day := i.as_of or i.date)]
    days = [i.as_of for i in items if i.as_of]
    day = min(days) if days else None
    later = store.filter_rowids(SearchFilter(kinds=[Kind.doc_section], since=day + dt.timedelta(days=1))) if day else []
    if not later or day is None:
        return same_day_note(store, own_days, given)
    # A section changed after the day that existed on it is read as first written (``sections_as_of``).
    then = sum(1 for r in store.by_rowids(later).values() if r.first_date and r.first_date <= day)
    why = f"the --as-of date {day}" if given else f"{day}, the item's own date"
    left = len(later) - then
    its = "was read with its text of its" if then == 1 else "were read with their text of their"
    read = f"{then} changed after it {its} first date, as the doc held it then"
    return [
        f"{left} living-doc section{'' if left == 1 else 's'} dated after {why}, {'was' if left == 1 else 'were'} "
        "left out as evidence (a section is dated by the doc's update that last changed its text); "
        "--as-of DATE, the doc's update or later, compares with them" + (f"; {read}" if then else "")
        if left
        else f"the living-doc section{'' if then == 1 else 's'} dated after {why}: {read}",
        *same_day_note(store, own_days, given),
    ]


def same_day_note(store: Store, items: list[tuple[str, dt.date]], given: bool) -> list[str]:
    """How many sections dated an item's check day were left out as folded in after it."""
    same = {s for item_id, day in items for s in same_day_sections(store, day, item_id)}
    if not same:
        return []
    day = min(day for _, day in items)
    why = f"the --as-of date {day}" if given else f"{day}, the item's own date"
    one = len(same) == 1
    return [
        f"{len(same)} living-doc section{'' if one else 's'} dated {why}, {'was' if one else 'were'} left out "
        "as evidence (written after this input's items were accepted that day: the day's fold of them); "
        f"--as-of {day + dt.timedelta(days=1)} compares with them"
    ]


def later_notes(
    item: Embedded,
    flt: SearchFilter,
    candidates: Callable[[Embedded, SearchFilter], dict[str, Embedded]],
    config: DedupeConfig,
    name_count: Callable[[str], int],
) -> list[str]:
    """When the item's own date hid later records: those that would have been the same item
    (``candidates``: check's, here with no date filter)."""
    day = flt.not_after
    if day is None or day != item.record.date:
        return []
    known = candidates(item, SearchFilter(exclude_ids=flt.exclude_ids))
    if not any(e.record.date is not None and e.record.date > day for e in known.values()):
        return []
    compared = compare_all(item, list(known.values()), config, name_count)
    later = [m for m in one_item(compared, known, config, name_count, item) if m.same_item and m.date and m.date > day]
    return [
        f"{m.id} ({m.instance + ', ' if m.instance else ''}{m.date}) would also be the same item, "
        f"but was written after this item's date {day} and so is no evidence that it repeats anything "
        f"(--as-of {m.date} compares with it)"
        for m in later
    ]
