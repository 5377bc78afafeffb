"""Items of one input that repeat each other (``kbsearch.dedupe.same_input``)."""

from __future__ import annotations

import datetime as dt

import numpy as np

from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.same_input import InputItems
from kbsearch.records import Kind, Record
from kbsearch.store import SearchFilter


def embedded(rid: str, instance: str, day: str | None, vector: list[float]) -> Embedded:
    record = Record(
        id=rid, kind=Kind.increment, instance=instance, date=dt.date.fromisoformat(day) if day else None, text=rid
    )
    unit = np.array(vector, dtype=np.float32) / np.linalg.norm(vector)
    return Embedded(record, unit[None, :], [record.text])


def test_only_earlier_notes_of_other_writers_or_days_are_asked_nearest_first() -> None:
    items = [
        embedded("jay-far", "jay", "2026-09-20", [0.0, 1.0]),
        embedded("jay-near", "jay", "2026-09-20", [1.0, 0.1]),
        embedded("spark-later", "spark", "2026-09-25", [1.0, 0.0]),
        embedded("undated", "stephen", None, [1.0, 0.0]),
        embedded("tom-own", "tom", "2026-09-22", [1.0, 0.0]),
        embedded("tom", "tom", "2026-09-22", [1.0, 0.0]),
    ]
    pooled = InputItems(items, nearest=2)
    assert list(pooled.before(5, SearchFilter())) == ["undated", "jay-near"]
    assert list(pooled.before(5, SearchFilter(until=dt.date(2026, 9, 22)))) == ["jay-near", "jay-far"]
    # check's as-of (the item's own date, or --as-of) hides later items, not undated ones, as in the store
    assert list(pooled.before(5, SearchFilter(not_after=dt.date(2026, 9, 22)))) == ["undated", "jay-near"]
    assert InputItems(items[4:], nearest=2).before(1, SearchFilter()) == {}
