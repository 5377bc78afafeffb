"""Arrays kept by key in memory, bounded by their rows in all, the least
recently read let go first: what a warm process keeps of the vectors it
computed (token vectors, the judge's passage vectors). Not thread-safe:
its owner holds a lock."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

import numpy as np

K = TypeVar("K", bound=Hashable)


class KeptRows(Generic[K]):
    """At most ``max_rows`` rows in all (one entry larger than that stays alone until the next)."""

    def __init__(self, max_rows: int) -> None:
        self.max_rows = max_rows
        self._kept: OrderedDict[K, np.ndarray] = OrderedDict()
        self._rows = 0

    def __contains__(self, key: K) -> bool:
        return key in self._kept

    def get(self, key: K) -> np.ndarray | None:
        """The kept rows of ``key``, now the most recently read; None when not kept."""
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
        return found

    def put(self, key: K, rows: np.ndarray) -> None:
        if key in self._kept:
            self._rows -= len(self._kept.pop(key))
        self._kept[key] = rows
        self._rows += len(rows)
        while self._rows > self.max_rows and len(self._kept) > 1:
            _, dropped = self._kept.popitem(last=False)
            self._rows -= len(dropped)
