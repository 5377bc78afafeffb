"""Known records as a check reads them, kept by a warm process between checks, and across writes.

A check loads each candidate (its record, its passage vectors, its judge vector) and reads
its text once (language, words, numbers): about 0.3 ms a record, 11 ms of a warm check's 70
on the 10k bench index, for the same records check after check. A process that checks one
briefing after another (``serve``, the TUI) keeps them per store.

A write (an accept, an ingest, by this process or another) changes a few records, not the
rest: a kept record stays as long as its row does. Each is kept with the digest of the row
it was built from (``Store.row_digests``); the first check to take it after the generation
moved reads its row's digest again, and builds it afresh when the row changed (replaced,
re-ingested, or deleted and its rowid given to another record). Nothing kept here reads the
rest of the index: an ``Embedded`` holds its record's JSON, the vectors its texts' hashes
key, the judge's, and what its text alone gives (``record_text``); the names' rarity, which
depends on every record, is each check's own (``NameHolders``, per generation). A reindex,
which may embed the same texts again, starts afresh (``Store.vectors_basis``).
"""

from __future__ import annotations

import copy
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol

from kbsearch.dedupe.rules import Embedded
from kbsearch.store import Store

KEPT_RECORDS = 2_000
"""Records kept per store, the least recently read let go first: 36 MB for 2,000
records of the 10k bench index (the records, passage and judge vectors, and the
words, names and numbers a comparison reads; measured with tracemalloc), 18 KB each."""


class StoredRows(Protocol):
    """What a kept record is checked against: the store, in the caller's snapshot."""

    @property
    def generation(self) -> int: ...

    def row_digests(self, rowids: list[int]) -> dict[int, bytes]: ...


@dataclass(slots=True)
class _Kept:
    embedded: Embedded
    digest: bytes
    """Of the row it was built from (``row_digests``)."""
    seen: int
    """The generation at which that row was last found unchanged."""


class KeptRecords:
    """Rowid → the record as a check built it, while its row stays as it was (``kept_records``)."""

    def __init__(self, capacity: int = KEPT_RECORDS) -> None:
        self.capacity = capacity
        self._kept: OrderedDict[int, _Kept] = OrderedDict()
        self._lock = threading.Lock()

    def make_room(self, count: int) -> None:
        """Keep at least ``count`` records: a process that builds them ahead (``kb.warm_checks``)."""
        with self._lock:
            self.capacity = max(self.capacity, count)

    def held(self) -> list[int]:
        """The rowids kept, the least recently read first (some may be of rows changed since)."""
        with self._lock:
            return list(self._kept)

    def take(self, rowids: list[int], rows: StoredRows) -> dict[int, Embedded]:
        """A check's own copy of each kept record whose row is unchanged: what a check adds to
        one (the judge's token vectors, read from the token encoder's own keep) stays its own."""
        generation = rows.generation
        with self._lock:
            found = {r: kept for r in rowids if (kept := self._kept.get(r)) is not None}
        unsure = [r for r, kept in found.items() if kept.seen != generation]
        now = rows.row_digests(unsure) if unsure else {}
        taken = {}
        with self._lock:
            for rowid, kept in found.items():
                if kept.seen != generation:
                    if now.get(rowid) != kept.digest:  # changed, or gone: built afresh by the caller
                        if self._kept.get(rowid) is kept:
                            del self._kept[rowid]
                        continue
                    kept.seen = generation
                if rowid in self._kept:
                    self._kept.move_to_end(rowid)
                taken[rowid] = copy.copy(kept.embedded)
        return taken

    def keep(self, built: dict[int, Embedded], digests: dict[int, bytes], generation: int) -> None:
        """Keep ``built``, read at ``generation`` from rows of ``digests``."""
        with self._lock:
            for rowid, embedded in built.items():
                kept = copy.copy(embedded)
                kept.judge_tokens = None
                self._kept[rowid] = _Kept(kept, digests[rowid], generation)
                self._kept.move_to_end(rowid)
            while len(self._kept) > self.capacity:
                self._kept.popitem(last=False)


_KEPT: weakref.WeakKeyDictionary[Store, tuple[int, tuple[str | None, ...], KeptRecords]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def kept_records(store: Store) -> KeptRecords:
    """The records kept for ``store`` (called inside its snapshot): the same across writes,
    afresh after a reindex or another model's binding (``Store.vectors_basis``)."""
    generation = store.generation
    with _LOCK:
        found = _KEPT.get(store)
        if found is not None and found[0] == generation:
            return found[2]
    basis = store.vectors_basis()  # read once a generation: a write seldom changes it
    with _LOCK:
        found = _KEPT.get(store)
        kept = found[2] if found is not None and found[1] == basis else KeptRecords()
        _KEPT[store] = (generation, basis, kept)
        return kept
