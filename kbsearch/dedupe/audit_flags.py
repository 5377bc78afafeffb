"""audit's flags: records marked new that an earlier record had, and id-table rows calling an id new that was not.

A "claimed new" flag is raised only from a direct judgement: a record marked new that was
itself judged the same item as an earlier record, or as one of another instance on its day.
An id-table row is checked against the records dated before its table, as ``check`` does.
"""

from __future__ import annotations

import numpy as np

from kbsearch.dedupe.audit_window import is_chosen
from kbsearch.dedupe.finer import COPIED
from kbsearch.dedupe.flags import row_flags
from kbsearch.dedupe.judging import Judged
from kbsearch.dedupe.results import Flag
from kbsearch.dedupe.roster import Roster, briefing_of
from kbsearch.dedupe.same_day import Moved
from kbsearch.dedupe.stopped import stopped_item, stopped_words
from kbsearch.records import IdMention, Record
from kbsearch.store import SearchFilter, Store


def _flagged(record: Record) -> dict[str, object]:
    """A flag's own fields naming the record it flags (not only its message)."""
    return {"id": record.id, "instance": record.instance, "date": record.date}


def claimed_new_flags(store: Store, roster: Roster, judged: Judged, moved: Moved) -> list[Flag]:
    """A record marked new that was directly judged the same item as an earlier
    record, or as one of another instance on its day, in the clusters' order (``moved``).
    A section holding it by one copied claim is no such record: the claim is not the item
    (``doc_subject``; probe 35: a restated date and fine flagged a new template)."""
    seen = {}
    for row in np.flatnonzero(roster.marked_new & roster.reportable).tolist():
        direct = moved.earliest_judged(row, judged, lambda r: int(roster.rank[r]), lambda why: why != COPIED)
        if direct is not None:
            seen[row] = direct
    rows = sorted(seen, key=lambda r: moved.rank.get(r, int(roster.rank[r])))
    records = store.by_rowids([int(roster.rowids[r]) for r in {*rows, *(e for e, _ in seen.values())}])
    flags = []
    for row in rows:
        record, (earlier, reason) = records[int(roster.rowids[row])], seen[row]
        first = records[int(roster.rowids[earlier])]
        if (first.date, first.instance) == (record.date, record.instance):
            continue
        message = (
            f"{record.id} ({record.instance}, {record.date}) is marked {record.anchor!r} but "
            f"{first.instance or 'a record'} had it on {first.date} ({first.id}; {reason})"
        )
        flags.append(Flag.seen_before(first, message).model_copy(update=_flagged(record)))
    return flags


def table_flags(store: Store, flt: SearchFilter) -> list[Flag]:
    """Id-table rows calling an id new that the same table or an earlier record had.
    A table is a briefing's (``briefing_of``): a reused inbox file holds one a day."""
    tables: dict[object, list[IdMention]] = {}
    for mention in store.id_mentions():
        if not is_chosen(mention.instance, mention.date, flt):
            continue
        tables.setdefault(briefing_of(mention.source, mention.date), []).append(mention)
    # No record is left out: a row is checked only against records dated before its
    # table, never its own briefing's, and a reused file's other days are the very
    # records a row calling an id new today must be checked against, as check does.
    known = SearchFilter()
    flags = []
    for mentions in tables.values():
        for mention in mentions:
            # Each row's own day: a reused inbox file holds a table per day.
            where = f"{mention.instance or '?'} {mention.date or ''}".strip()
            found = row_flags(store, mention, mentions, known)
            stopped = stopped_item(store, mention) if found else None  # the row's item the gate left out
            for flag in found:
                note = stopped_words(stopped) if stopped is not None else ""
                told = {"message": f"{where}: {flag.message}{note}", "instance": mention.instance, "date": mention.date}
                flags.append(flag.model_copy(update={**told, "stopped_at_gate": stopped and stopped.id}))
    return flags
