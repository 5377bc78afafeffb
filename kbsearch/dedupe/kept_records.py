"""Known records as a check reads them, kept by a warm process between checks.

A check loads each candidate (its record, its passage vectors, its judge
vector) and reads its text once (language, words, numbers): about 0.3 ms a
record, 11 ms of a warm check's 70 on the 10k bench index, for the same
records check after check. A process that checks one briefing after another
(``serve``, the TUI) keeps them per store until the index changes: every
write moves the store's generation on, and the next check starts afresh.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict

from kbsearch.dedupe.rules import Embedded
from kbsearch.store import Store
from kbsearch.store.per_generation import PerGeneration

KEPT_RECORDS = 2_000
"""Records kept per store, the least recently read let go first: 36 MB for 2,000
records of the 10k bench index (the records, passage and judge vectors, and the
words, names and numbers a comparison reads; measured with tracemalloc), 18 KB each."""


class KeptRecords:
    """Rowid → the record as a check built it, for one state of the index (``kept_records``)."""

    def __init__(self, capacity: int = KEPT_RECORDS) -> None:
        self.capacity = capacity
        self._kept: OrderedDict[int, Embedded] = OrderedDict()
        self._lock = threading.Lock()

    def make_room(self, count: int) -> None:
        """Keep at least ``count`` records: a process that builds them ahead (``kb.warm_checks``)."""
        with self._lock:
            self.capacity = max(self.capacity, count)

    def held(self) -> list[int]:
        """The rowids kept, the least recently read first."""
        with self._lock:
            return list(self._kept)

    def take(self, rowids: list[int]) -> dict[int, Embedded]:
        """A check's own copy of each kept record: what a check adds to one (the
        judge's token vectors, read from the token encoder's own keep) stays its own."""
        found = {}
        with self._lock:
            for rowid in rowids:
                kept = self._kept.get(rowid)
                if kept is not None:
                    self._kept.move_to_end(rowid)
                    found[rowid] = copy.copy(kept)
        return found

    def keep(self, built: dict[int, Embedded]) -> None:
        with self._lock:
            for rowid, embedded in built.items():
                self._kept[rowid] = copy.copy(embedded)
                self._kept[rowid].judge_tokens = None
                self._kept.move_to_end(rowid)
            while len(self._kept) > self.capacity:
                self._kept.popitem(last=False)


_KEPT = PerGeneration(KeptRecords)


def kept_records(store: Store) -> KeptRecords:
    """The records kept for ``store`` at its generation now (called inside its snapshot)."""
    return _KEPT.of(store)
