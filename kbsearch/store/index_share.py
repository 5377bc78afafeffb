"""One vector index per generation, shared by the reader threads of one process."""

from __future__ import annotations

import threading
from collections.abc import Callable

from kbsearch.vector_index import VectorIndex


class IndexShare:
    """One vector index per generation for several readers of one index.

    Each reader has its own SQLite connection, but the vector index is the
    same for all of them at a given generation: it is loaded once (by the
    first reader that needs it, the others waiting) instead of once per
    reader, and a writer in the same process publishes a copy of its updated
    index (``VectorCache.replace``), so no reader reads the file back. Two
    generations are kept, for readers still in an older snapshot.
    """

    KEPT = 2

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._indexes: dict[int, VectorIndex] = {}
        self._files: dict[object, IndexShare] = {}

    def of(self, file: object) -> IndexShare:
        """The share for one database file (``Store.identity``). An index rebuilt at the same
        path counts its generations from 1 again: keyed by generation alone, its readers would
        get the removed index's vectors. Only the newest file's is kept (the others were replaced)."""
        with self._lock:
            if file not in self._files:
                self._files = {file: IndexShare()}
            return self._files[file]

    def get(self, generation: int, load: Callable[[int], VectorIndex]) -> VectorIndex:
        with self._lock:
            index = self._indexes.get(generation)
            if index is None:
                index = load(generation)
                self._keep(generation, index)
            return index

    def publish(self, generation: int, index: VectorIndex) -> None:
        with self._lock:
            self._keep(generation, index)

    def _keep(self, generation: int, index: VectorIndex) -> None:
        self._indexes[generation] = index
        for old in sorted(self._indexes)[: -self.KEPT]:
            del self._indexes[old]
