"""Items of one input that repeat each other: a pooled inbox, several writers' JSONL.

``check`` compares an item with the known records, and also with the items
before it in the same input that another writer wrote, or the same writer on
another day: an inbox holding jay's and spark's notes of one day may tell one
claim twice, and accepting both as NEW is the very repeat the gate is for.
One writer's items of one day (one briefing) are distinct by construction and
never compared, as ``audit`` never compares one file's records.
"""

from __future__ import annotations

import numpy as np

from kbsearch.dedupe.results import Match
from kbsearch.dedupe.rules import Embedded
from kbsearch.store import SearchFilter


class InputItems:
    """An input's items, for asking which earlier ones each may repeat."""

    def __init__(self, items: list[Embedded], nearest: int) -> None:
        self.items = items
        self.nearest = nearest
        self._group = _keys([(e.record.instance, e.record.date) for e in items])
        self._id = _keys([e.record.id for e in items])
        self._day = np.array([e.record.date.toordinal() if e.record.date else -1 for e in items], dtype=np.int64)
        pooled = len(set(self._group.tolist())) > 1  # else one writer's one day: never compared
        self._wholes = np.stack([e.whole for e in items]) if pooled else None

    def before(self, number: int, flt: SearchFilter) -> dict[str, Embedded]:
        """The ``nearest`` items before item ``number`` (by whole-text cosine) that it may
        repeat: by another writer or on another day, dated no later than it (nor than
        ``flt`` allows), and never as undated when ``flt`` hides undated records. An
        input of one writer's one day (a briefing) has none."""
        if self._wholes is None or number == 0:
            return {}
        item = self.items[number]
        last = min((d.toordinal() for d in (item.record.date, flt.until, flt.not_after) if d is not None), default=None)
        days = self._day[:number]
        dated_in_time = (days >= 0) & (days <= last) if last is not None else days >= 0
        undated_seen = (days < 0) & (flt.until is None)  # as in the store: only ``until`` hides undated records
        keep = (self._group[:number] != self._group[number]) & (self._id[:number] != self._id[number])
        rows = np.flatnonzero(keep & (dated_in_time | undated_seen))
        nearest = rows[np.argsort(-(self._wholes[rows] @ item.whole), kind="stable")[: self.nearest]]
        return {self.items[r].record.id: self.items[r] for r in nearest.tolist()}


def _keys(values: list[object]) -> np.ndarray:
    """Equal values, equal keys."""
    seen: dict[object, int] = {}
    return np.array([seen.setdefault(v, len(seen)) for v in values], dtype=np.int64)


def input_notes(matches: list[Match], in_input: dict[str, Embedded]) -> list[str]:
    """Say which same-item matches are items of this input, not stored records."""
    return [
        f"{m.id} ({m.instance + ', ' if m.instance else ''}{m.date or 'undated'}) is an earlier item of this "
        "same input, not a stored record: accept one of the two, or keep only what this one adds"
        for m in matches
        if m.same_item and m.id in in_input
    ]
