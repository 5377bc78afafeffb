"""What an audit's filter (``--since``, ``--instance``) chooses: the records reported, not those compared.

Every record is compared and clustered as without the filter, and the clusters holding
a chosen record are shown whole, with the chosen records' flags: a cluster's members
from before the window say who was first, and only the whole index gives each pair
its true neighbourhood.
"""

from __future__ import annotations

import datetime as dt

from kbsearch.dedupe.roster import Roster
from kbsearch.store import SearchFilter, Store


def items_chosen(store: Store, flt: SearchFilter) -> dict[str, int]:
    """Records per instance among those the filter chose (one count query per instance)."""
    every = {name: n for name, n in store.counts_by("instance").items() if name != "-"}  # "-": no instance
    if flt.is_empty():
        return every
    return {
        name: len(store.filter_rowids(flt.model_copy(update={"instance": name})) or [])
        for name in every
        if not flt.instance or name.lower() == flt.instance.lower()
    }


def is_chosen(instance: str | None, date: dt.date | None, flt: SearchFilter) -> bool:
    """Whether a record of ``instance`` on ``date`` is one the filter chose (audit filters by these alone)."""
    return _in_range(date, flt) and (not flt.instance or (instance or "").lower() == flt.instance.lower())


def reported(roster: Roster, groups: list[list[int]]) -> list[list[int]]:
    """The clusters holding an item the filter chose: a cluster is grown from every
    record, as the unfiltered audit grows it, so its members from before the window
    still say who was first. A living-doc section is dated by the doc's last update,
    not by when it was written, so a chosen section alone does not bring its cluster
    into a window (probe 16: ``--since 2026-10-31`` showed 30 clusters each reached only
    through an ``in doc`` section, none with an item of that day); a cluster of sections
    alone is shown for a chosen one."""
    if roster.reported is None:
        return groups
    shown = []
    for group in groups:
        chosen, items = roster.reported[group], ~roster.docs[group]
        if (chosen & items).any() or (chosen.any() and not items.any()):
            shown.append(group)
    return shown


def _in_range(date: dt.date | None, flt: SearchFilter) -> bool:
    if date is None:
        return flt.since is None and flt.until is None
    return (flt.since is None or date >= flt.since) and (flt.until is None or date <= flt.until)
