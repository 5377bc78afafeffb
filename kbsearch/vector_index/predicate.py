"""Filters as predicates: the part of a ``SearchFilter`` a remote engine applies itself.

A local backend is handed the allowed vector ids, listed from SQLite. A
remote engine (Milvus) keeps each point's kind, instance, topic and date as
scalar fields and is handed a ``Predicate`` over them instead, so a filter
that keeps half of fifty million vectors sends a few words per query, not
25 million ids. What the fields cannot say (a section, matched as a
case-insensitive substring) falls back to allowed ids; the exclusions a
check adds (the item, its file) stay a post-filter, as for every backend.

The rules mirror ``kbsearch.filters.filter_sql`` exactly, and
``Predicate.matches`` states them in Python for the tests to hold both to.
"""

from __future__ import annotations

from dataclasses import dataclass

from kbsearch.filters import SearchFilter

_ASCII_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold_nocase(value: str | None) -> str:
    """SQLite's ``COLLATE NOCASE``: ASCII letters folded, nothing else (an
    ``É`` stays an ``É``, as SQLite compares it). ``None`` is ``""``."""
    return (value or "").translate(_ASCII_UPPER)


@dataclass(frozen=True)
class PointFields:
    """The scalar fields a remote point carries beside its vector: the
    record's kind, its instance and topic folded as NOCASE compares them,
    and its ISO date; ``""`` where the record has none."""

    kind: str
    instance: str = ""
    topic: str = ""
    date: str = ""

    @classmethod
    def of(cls, kind: str, instance: str | None, topic: str | None, date: str | None) -> PointFields:
        return cls(kind, fold_nocase(instance), fold_nocase(topic), date or "")


@dataclass(frozen=True)
class Predicate:
    """A filter's include part over ``PointFields``; dates as ISO strings,
    which order as the dates do."""

    kinds: tuple[str, ...] = ()
    instance: str | None = None
    topic: str | None = None
    since: str | None = None
    until: str | None = None
    not_after: str | None = None

    @classmethod
    def of(cls, flt: SearchFilter) -> Predicate | None:
        """The filter's include part as a predicate; None when it holds what
        the scalar fields cannot say (a section, a category): then allowed ids it is."""
        if flt.section or flt.category:
            return None
        iso = lambda day: day.isoformat() if day else None  # noqa: E731
        return cls(
            kinds=tuple(k.value for k in flt.kinds),
            instance=fold_nocase(flt.instance) if flt.instance else None,
            topic=fold_nocase(flt.topic) if flt.topic else None,
            since=iso(flt.since),
            until=iso(flt.until),
            not_after=iso(flt.not_after),
        )

    def is_empty(self) -> bool:
        return self == Predicate()

    def matches(self, point: PointFields) -> bool:
        """The rule ``filter_sql`` writes in SQL, over one point's fields."""
        dated = point.date != ""  # SQL's NULL: no comparison holds
        return (
            (not self.kinds or point.kind in self.kinds)
            and (self.instance is None or point.instance == self.instance)
            and (self.topic is None or point.topic == self.topic)
            and (self.since is None or (dated and point.date >= self.since))
            and (self.until is None or (dated and point.date <= self.until))
            and (self.not_after is None or not dated or point.date <= self.not_after)
        )
