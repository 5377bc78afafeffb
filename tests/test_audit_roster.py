"""audit's roster ranks records in first-seen order without holding their key tuples."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from kbsearch.dedupe.flags import seen_order
from kbsearch.dedupe.roster import _OrderKeys
from kbsearch.records import Kind, Record

DAYS = st.one_of(st.none(), st.dates(min_value=dt.date(2026, 8, 1), max_value=dt.date(2026, 8, 4)))
WHO = st.one_of(st.none(), st.sampled_from(["", "jay", "spark", "stephen", "tom", "Tom"]))


KINDS = st.sampled_from([Kind.increment, Kind.paper_card, Kind.doc_section])


def first_seen(record: Record, arrival: int) -> tuple[object, ...]:
    """The order check and the id-table flags read (``seen_order``), then the id: earliest
    date first, undated last; on one day a living doc's section last (its date is its last
    update), a writer's record before an unattributed one, then the one stored first
    (rows are read in row-id order), writers by name only after that."""
    return (*seen_order(record.date, record.kind, record.instance, arrival), record.id)


@given(st.lists(st.tuples(DAYS, WHO, KINDS), min_size=1, max_size=40))
def test_ranks_follow_first_seen_order(rows: list[tuple[dt.date | None, str | None, Kind]]) -> None:
    records = [
        Record(id=f"r{i:03d}", kind=kind, title="", text="x", date=day, instance=who)
        for i, (day, who, kind) in reversed(list(enumerate(rows)))
    ]
    keys = _OrderKeys(len(records))
    for row, record in enumerate(records):
        keys.note(row, record)
    ranks = keys.ranks()
    by_rank = [records[row] for row in sorted(range(len(records)), key=lambda r: ranks[r])]
    assert by_rank == [records[r] for r in sorted(range(len(records)), key=lambda r: first_seen(records[r], r))]
