"""audit's roster ranks records in first-seen order without holding their key tuples."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from kbsearch.dedupe.roster import _OrderKeys
from kbsearch.records import Kind, Record

DAYS = st.one_of(st.none(), st.dates(min_value=dt.date(2026, 8, 1), max_value=dt.date(2026, 8, 4)))
WHO = st.one_of(st.none(), st.sampled_from(["", "jay", "spark", "stephen", "tom", "Tom"]))


def first_seen(record: Record) -> tuple[bool, dt.date, bool, str, str]:
    """The order the audit documents: earliest date first, undated last; on one
    day a writer's record before an unattributed one, writers by name; then id."""
    return (
        record.date is None,
        record.date or dt.date.max,
        record.instance is None,
        record.instance or "",
        record.id,
    )


@given(st.lists(st.tuples(DAYS, WHO), min_size=1, max_size=40))
def test_ranks_follow_first_seen_order(rows: list[tuple[dt.date | None, str | None]]) -> None:
    records = [
        Record(id=f"r{i:03d}", kind=Kind.increment, title="", text="x", date=day, instance=who)
        for i, (day, who) in reversed(list(enumerate(rows)))
    ]
    keys = _OrderKeys(len(records))
    for row, record in enumerate(records):
        keys.note(row, record)
    ranks = keys.ranks()
    by_rank = [records[row] for row in sorted(range(len(records)), key=lambda r: ranks[r])]
    assert by_rank == sorted(records, key=first_seen)
