"""Who was first on one day: audit's credit among the items of its first item's day.

The roster orders records by day, then by the order they were stored (``roster._OrderKeys``):
it reads no time of day, so an operator backfilling old briefings out of order gave the
credit to whichever was loaded first (probe 28: tom's briefing signed 22:20, loaded before
vera's signed 09:10 the same day, was first). A briefing's signature may give its time
(``Tom · 2026-10-05 22:20``, ``Record.signed_at``): when every item of the day gives one, the
earliest is first; else the order of loading stays, and the cluster says it decided
(``day_order``, the rule check's first seen and its re-check read too). Only the members of
a cluster, already read to show it, are looked at, never the whole roster.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kbsearch.dedupe.audit_results import SameDayTie
from kbsearch.dedupe.day_order import all_signed, day_order
from kbsearch.dedupe.judging import Judged
from kbsearch.records import Record


def first_of_day(items: list[int], record: dict[int, Record]) -> tuple[list[int], SameDayTie | None]:
    """``items`` (rows in first-seen order) with the earliest signed of the first item's day
    first, and the tie with other writers' items of that day, if any. Items without a writer
    stay after those with one, as the roster puts them."""
    head = record[items[0]] if items else None
    if head is None or head.date is None or head.instance is None:
        return items, None
    # Arrival is the place in ``items``: on one day the roster puts writers' items in loading order.
    entries = [(r, record[r].signed_at, at) for at, r in enumerate(items)]
    entries = [e for e in entries if record[e[0]].date == head.date and record[e[0]].instance is not None]
    timed, day = all_signed(entries), day_order(entries)  # one time for two keeps the order of loading
    first, taken = record[day[0]], set(day)
    ordered = day + [r for r in items if r not in taken]
    others = [r for r in day[1:] if record[r].instance != first.instance]
    if not others:
        return ordered, None
    by_time = timed and all(record[r].signed_at != first.signed_at for r in others)
    tie = SameDayTie(ids=[record[r].id for r in others], decided_by="signed time" if by_time else "loading order")
    return ordered, tie


@dataclass
class Moved:
    """The items of the clusters ``first_of_day`` reordered, each with the roster rank of the
    place it took (the ranks of the rest of the roster stay: nothing else is re-sorted), and
    its cluster's items."""

    rank: dict[int, int] = field(default_factory=dict)
    peers: dict[int, list[int]] = field(default_factory=dict)

    def add(self, ranked: list[int], ordered: list[int], rank: Callable[[int], int]) -> None:
        """``ranked``: a cluster's items in roster order, ``ordered``: as ``first_of_day`` put them."""
        if ordered == ranked:
            return
        self.rank |= {row: rank(was) for row, was in zip(ordered, ranked, strict=True)}
        self.peers |= dict.fromkeys(ordered, ordered)  # one moved past may itself stay in place

    def earliest_judged(
        self, row: int, judged: Judged, rank: Callable[[int], int], counts: Callable[[str], bool] = lambda why: True
    ) -> tuple[int, str] | None:
        """The earliest record judged the same item as ``row`` and placed before it, a moved
        row at its new place, and why: audit's "claimed new but seen before" in the order its
        clusters show (probe 28: vera, signed 09:10 but loaded after tom's 22:20 of her day,
        was flagged as claiming new what tom had said first). Only judgements whose reason
        ``counts`` are read (a section holding the item by one copied claim does not)."""

        def place(r: int) -> int:
            return self.rank.get(r, rank(r))

        found = [(int(judged.earlier[at]), judged.reasons[at]) for at in judged.before(row)]
        for other in self.peers.get(row, ()):  # one loaded after ``row`` may now be placed before it
            found += [(other, judged.reasons[at]) for at in judged.before(other) if int(judged.earlier[at]) == row]
        found = [(other, why) for other, why in found if place(other) < place(row) and counts(why)]
        return min(found, key=lambda pair: place(pair[0]), default=None)
