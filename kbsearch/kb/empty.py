"""Which filters together leave nothing to find, when each alone finds records.

``--instance spark --topic agents`` (spark never wrote on agents) or
``--topic agents --since 2030-01-01`` answered a bare "no results", as if the
query were to blame. The smallest set of the filter's parts whose records
count to none is named, with what its records have instead: a few ``COUNT``
queries over ``records``, asked only to explain an empty result.
"""

from __future__ import annotations

from itertools import combinations
from typing import Literal

from kbsearch.filters import SearchFilter
from kbsearch.responses import UnknownFilter
from kbsearch.store import Store
from kbsearch.store.filter_values import date_span, distinct_values

Part = Literal["kind", "instance", "topic", "category", "date", "section"]
ORDER: tuple[Part, ...] = ("kind", "instance", "topic", "category", "date", "section")
"""The filter's parts; in a set of them, the last is the one named, the others are ``within``."""


def parts_of(flt: SearchFilter) -> dict[Part, SearchFilter]:
    """Each part the filter sets, as a filter of that part alone."""
    parts: dict[Part, SearchFilter] = {}
    if flt.kinds:
        parts["kind"] = SearchFilter(kinds=flt.kinds)
    names: tuple[Part, ...] = ("instance", "topic", "category", "section")
    for name in names:
        if getattr(flt, name):
            parts[name] = SearchFilter().model_copy(update={name: getattr(flt, name)})
    if flt.since or flt.until or flt.not_after:
        parts["date"] = SearchFilter(since=flt.since, until=flt.until, not_after=flt.not_after)
    return parts


def joined(parts: dict[Part, SearchFilter], names: tuple[Part, ...]) -> SearchFilter:
    update: dict[str, object] = {}
    for name in names:
        update |= parts[name].model_dump(exclude_defaults=True)
    return SearchFilter().model_copy(update=update)


def date_said(flt: SearchFilter) -> str:
    """``from 2030-01-01``, ``until 2020-01-01``, ``2024-01-01 to 2024-02-01``."""
    start, end = flt.since, min(d for d in (flt.until, flt.not_after) if d) if flt.until or flt.not_after else None
    if start and end:
        return f"{start} to {end}"
    return f"from {start}" if start else f"until {end}"


def value_of(part: Part, flt: SearchFilter) -> str:
    return date_said(flt) if part == "date" else str(getattr(flt, part))


def empty_together(store: Store, flt: SearchFilter, *, skip: set[frozenset[Part]]) -> list[UnknownFilter]:
    """The smallest sets of the filter's parts that no record matches (all
    sets of that size), each said as the last part within the others; empty
    when every part and pair finds records and so does the whole filter.
    ``skip``: sets already known to find records."""
    parts = parts_of(flt)
    if not parts or store.count(joined(parts, tuple(parts))):
        return []
    for size in range(1, len(parts) + 1):
        found = []
        for names in combinations([p for p in ORDER if p in parts], size):
            if frozenset(names) in skip:
                continue
            if not store.count(joined(parts, names)):
                found.append(_said(store, parts, names))
        if found:
            return found
    return []


def _said(store: Store, parts: dict[Part, SearchFilter], names: tuple[Part, ...]) -> UnknownFilter:
    named, others = names[-1], tuple(n for n in names[:-1] if n != "kind")
    rest = joined(parts, names[:-1])
    known: list[str] = []
    if named == "date":
        known = date_span(store, rest)
    elif named in ("instance", "topic", "category"):
        known = distinct_values(store, named, rest)
    elsewhere: list[str] = []
    if named == "topic" and "instance" in others:
        elsewhere = distinct_values(store, "instance", joined(parts, tuple(n for n in names if n != "instance")))
    return UnknownFilter(
        filter=named,
        value=value_of(named, parts[named]),
        known=known,
        kinds=[kind.value for kind in rest.kinds],
        within={name: value_of(name, parts[name]) for name in others},
        elsewhere=elsewhere,
    )
