"""Reading stored records for people: one record by id (or the start of
one), a listing, and what the index holds.

Ids are long (``jay/2026-08-26-jay-inference-e1prep#1``): ``show`` takes the
start of one when exactly one id starts that way, and names the candidates
when several do, as git does with commit hashes.
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Literal

import kbsearch.store.lexical_merge as lexical_merge
from kbsearch.errors import KbError, RecordNotFound
from kbsearch.filters import require_limit
from kbsearch.kb.empty import Part, empty_together
from kbsearch.records import Record
from kbsearch.responses import ListedRecord, Listing, Stats, UnknownFilter
from kbsearch.store import MANIFEST_NAME, SearchFilter, Store
from kbsearch.store.filter_values import distinct_values
from kbsearch.store.migrations import schema

SHOWN_CANDIDATES = 10
_NOCASE = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
"""SQLite's NOCASE, which the filters compare with: ASCII letters only."""
LIST_IDS_HINT = "list the ids with 'kbsearch list --format ids' or 'kbsearch list --json'"


def find_record(store: Store, wanted: str) -> Record:
    """The record whose id is ``wanted``, else the one whose id starts with it."""
    record = store.get(wanted)
    if record is not None:
        return record
    found = store.ids_with_prefix(wanted, SHOWN_CANDIDATES + 1) if wanted else []
    if not found:
        raise RecordNotFound(f"no record with id {wanted!r}", hint=LIST_IDS_HINT)
    if len(found) > 1:
        more = ", …" if len(found) > SHOWN_CANDIDATES else ""
        raise KbError(
            f"{wanted!r} is the start of {'more than ' if more else ''}{min(len(found), SHOWN_CANDIDATES)} ids: "
            + ", ".join(found[:SHOWN_CANDIDATES])
            + more,
            hint="type more of the id",
        )
    record = store.get(found[0])
    if record is None:  # deleted by a concurrent writer since the lookup
        raise RecordNotFound(f"no record with id {wanted!r}", hint=LIST_IDS_HINT)
    return record


def listing(store: Store, flt: SearchFilter | None, limit: int | None) -> Listing:
    require_limit(limit)
    records: list[ListedRecord] = []
    with store.snapshot():
        for record in store.iter_records(flt):
            if limit is not None and len(records) >= limit:
                break
            records.append(ListedRecord.from_record(record))
        unknown = unknown_filters(store, flt) if flt and not records else []
        total = store.count()
        matched = store.count(flt) if flt and not flt.is_empty() else total
        return Listing(records=records, total=total, matched=matched, unknown_filters=unknown)


def unknown_filters(store: Store, flt: SearchFilter) -> list[UnknownFilter]:
    """The filter's values that no stored record has: an instance, a topic, a category,
    or kinds none of which has a record; else the filters that together
    leave nothing (``kbsearch.kb.empty``). Each is a scan of the records, so
    it is asked only to explain an empty result."""
    unknown: list[UnknownFilter] = []
    fields: tuple[Literal["instance", "topic", "category"], ...] = ("instance", "topic", "category")
    for field in fields:
        value = getattr(flt, field)
        if value:
            known = [name for name in store.counts_by(field) if name != "-"]  # '-': the records without one
            if value.translate(_NOCASE) not in {name.translate(_NOCASE) for name in known}:
                unknown.append(UnknownFilter(filter=field, value=value, known=known))
    if flt.kinds:
        kinds = [kind for kind, count in store.counts_by("kind").items() if count]
        if not any(kind.value in kinds for kind in flt.kinds):
            unknown += [UnknownFilter(filter="kind", value=kind.value, known=kinds) for kind in flt.kinds]
    return unknown or _not_of_these_kinds(store, flt) or empty_together(store, flt, skip=_FOUND_ALONE)


_FOUND_ALONE: set[frozenset[Part]] = {
    frozenset(names)
    for names in (
        ("kind",),
        ("instance",),
        ("topic",),
        ("category",),
        ("kind", "instance"),
        ("kind", "topic"),
        ("kind", "category"),
    )
}
"""What ``unknown_filters`` has counted before ``empty_together``: each finds records when it gets there."""


def _not_of_these_kinds(store: Store, flt: SearchFilter) -> list[UnknownFilter]:
    """An instance, topic or category that records have, but none of the filter's kinds:
    ``--topic inference --kind paper_card`` (a card has no topic) left nothing
    to find and said nothing of why."""
    if not flt.kinds:
        return []
    of_kinds = SearchFilter(kinds=flt.kinds)
    kinds = [kind.value for kind in flt.kinds]
    unknown = []
    fields: tuple[Literal["instance", "topic", "category"], ...] = ("instance", "topic", "category")
    for field in fields:
        value = getattr(flt, field)
        if value and not store.count(of_kinds.model_copy(update={field: value})):
            known = distinct_values(store, field, of_kinds)
            unknown.append(UnknownFilter(filter=field, value=value, known=known, kinds=kinds))
    return unknown


def stored_model(root: Path) -> str | None:
    """The model the index at ``root`` was built with; None when there is no index (or it is empty)."""
    if not Store.exists(root):
        return None
    store = Store.open(root)
    try:
        return store.model
    finally:
        store.close()


def stats(store: Store, root: Path) -> Stats:
    with store.snapshot():
        manifest = store.read_manifest()
        # One there but unreadable is said as doctor says it, not as a cache never built.
        unreadable = "unreadable" if manifest is None and (store.root / MANIFEST_NAME).exists() else None
        segments, merge_in = lexical_merge.status(store.db)
        return Stats(
            index=str(root),
            records=store.count(),
            by_kind=store.counts_by("kind"),
            by_instance=store.counts_by("instance"),
            by_topic=store.counts_by("topic"),
            by_category=store.counts_by("category"),
            model=store.model,
            dim=store.dim,
            judge=store.judge,
            format_version=schema(store.db),  # the migrations applied: what a kbsearch must know to read it
            generation=store.generation,
            last_ingest=store.last_ingest,
            passages=store.passage_count(),
            vectors=manifest.count if manifest else None,
            index_type=manifest.index_type if manifest else unreadable,
            vector_store=choice.label if (choice := store.cache.choice) else None,
            fulltext_segments=segments,
            fulltext_merge_in=merge_in,
        )
