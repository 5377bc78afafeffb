"""``VectorIndex``: the one object the store searches, whatever the backend.

It holds one backend (``flat.py`` exact, ``hnsw.py`` approximate; both
behind ``base.VectorBackend``) and picks it by size: exact below
``IndexParams.approximate_from`` vectors, HNSW from there. Growing past the
threshold switches at once; shrinking, or collecting tombstones, only marks
the index for compaction, which the store runs in the background from the
float32 vectors in SQLite.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import faiss
import numpy as np

from kbsearch.errors import KbError
from kbsearch.vector_index.base import FaissBackend, VectorBackend, empty_result
from kbsearch.vector_index.flat import FlatBackend
from kbsearch.vector_index.hnsw import HnswBackend
from kbsearch.vector_index.params import IndexParams
from kbsearch.vector_index.predicate import PointFields, Predicate

BACKENDS: tuple[type[FaissBackend], ...] = (FlatBackend, HnswBackend)
"""The local backends, read from ``vectors.faiss``; a remote one (``milvus.py``) is
handed to ``VectorIndex`` by the store that connects to it."""


class VectorIndex:
    """Inner-product search over unit vectors whose ids are the passages' vector ids."""

    def __init__(self, dim: int, params: IndexParams | None = None, backend: VectorBackend | None = None) -> None:
        self.dim = dim
        self.params = params or IndexParams()
        self._backend = backend or FlatBackend(dim, self.params)

    @classmethod
    def build(cls, dim: int, ids: np.ndarray, vectors: np.ndarray, params: IndexParams | None = None) -> VectorIndex:
        index = cls(dim, params)
        index.add(ids, vectors)
        return index

    @classmethod
    def from_chunks(
        cls,
        dim: int,
        total: int,
        chunks: Iterable[tuple[np.ndarray, np.ndarray]],
        sample: Callable[[int], np.ndarray],
        params: IndexParams | None = None,
    ) -> VectorIndex:
        """Build from (ids, vectors) chunks without holding every vector twice:
        the backend is chosen from ``total`` up front, and an HNSW index learns
        its quantizer from ``sample(size)`` (stored vectors at random) first."""
        index = cls(dim, params)
        if total >= index.params.approximate_from:
            hnsw = HnswBackend(dim, index.params)
            hnsw.train(sample(index.params.train_size))
            index._backend = hnsw
        for ids, vectors in chunks:
            index._backend.add(np.ascontiguousarray(ids, dtype=np.int64), _rows(vectors, dim))
        return index

    @property
    def kind(self) -> str:
        """``flat`` (exact), ``hnsw`` (approximate) or ``milvus`` (remote)."""
        return self._backend.kind

    @property
    def takes_predicates(self) -> bool:
        """Filters go to the backend as a ``Predicate`` rather than allowed ids."""
        return self._backend.takes_predicates

    @property
    def backend(self) -> VectorBackend:
        return self._backend

    @property
    def count(self) -> int:
        return self._backend.count

    @property
    def tombstones(self) -> int:
        return self._backend.tombstones

    @property
    def needs_compaction(self) -> bool:
        """Deleted vectors past their share, or an approximate index small enough to be exact again."""
        if self.kind != "hnsw":  # flat has no tombstones; a remote engine compacts itself
            return False
        held = self.count + self.tombstones
        return self.tombstones > self.params.compact_share * held or self.count < self.params.exact_below

    def ids(self) -> np.ndarray:
        return self._backend.ids()

    def add(self, ids: np.ndarray, vectors: np.ndarray, fields: Sequence[PointFields] | None = None) -> None:
        if len(ids) == 0:
            return
        vectors = _rows(vectors, self.dim).reshape(len(ids), self.dim)
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        if self.kind == "flat" and self.count + len(ids) >= self.params.approximate_from:
            held = self.ids()
            everything = np.concatenate([self.vectors(held), vectors])
            self._backend = HnswBackend(self.dim, self.params)
            self._backend.add(np.concatenate([held, ids]), everything)
            return
        self._backend.add(ids, vectors, fields)

    def remove(self, ids: np.ndarray) -> None:
        if len(ids):
            self._backend.remove(np.ascontiguousarray(ids, dtype=np.int64))

    def search(
        self, queries: np.ndarray, k: int, allowed: np.ndarray | None = None, where: Predicate | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-k (scores, ids) per query row; ``allowed`` (or ``where``, for a
        backend that takes predicates) restricts the candidates inside the
        search, so a filtered query still gets k hits when k exist."""
        if where is not None and not self.takes_predicates:
            raise ValueError(f"the {self.kind} backend takes allowed ids, not a predicate")
        queries = _rows(queries, self.dim).reshape(-1, self.dim)
        if len(queries) == 1 and faiss.omp_get_max_threads() != 1:
            # OpenMP's thread count belongs to each thread, and the one set at
            # import is the main thread's: a query on a server's reader thread
            # or the TUI's gateway would take every core (docs/performance.md).
            faiss.omp_set_num_threads(1)
        if allowed is not None and len(allowed) == 0:
            return empty_result(len(queries))
        if self.takes_predicates:  # counting is a round trip to the engine: it pads rows instead
            return self._backend.search(queries, max(1, k), allowed, where)
        if self.count == 0:
            return empty_result(len(queries))
        k = max(1, min(k, self.count if allowed is None else len(allowed)))
        return self._backend.search(queries, k, allowed, where)

    def copy(self) -> VectorIndex:
        """An independent copy (in memory, no file): for readers to search
        while this one goes on changing."""
        return VectorIndex(self.dim, self.params, self._backend.copy())

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        if len(ids) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._backend.vectors(np.ascontiguousarray(ids, dtype=np.int64))

    def write(self, path: Path) -> str:
        """Stream the faiss file to ``path``; returns its sha256."""
        if not isinstance(self._backend, FaissBackend):
            raise TypeError(f"a {self.kind} index has no faiss file")
        return self._backend.write(path)

    @classmethod
    def read(cls, path: Path, dim: int, params: IndexParams | None = None) -> VectorIndex:
        """Load a faiss file straight from disk: no second copy in memory."""
        params = params or IndexParams()
        try:
            raw = faiss.read_index(str(path))
        except RuntimeError as err:
            raise KbError(
                f"the vector file is unreadable: {str(err).splitlines()[0][:120]}",
                path=str(path),
                hint="run 'kbsearch reindex'",
            ) from err
        if raw.d != dim:
            raise KbError(
                f"the vector file holds {raw.d}-d vectors, the index expects {dim}",
                path=str(path),
                hint="run 'kbsearch reindex'",
            )
        for backend in BACKENDS:
            found = backend.from_faiss(raw, dim, params)
            if found is not None:
                return cls(dim, params, found)
        raise KbError(
            f"the vector file holds a {type(raw).__name__}, which this kbsearch does not read",
            path=str(path),
            hint="run 'kbsearch reindex'",
        )


def _rows(vectors: np.ndarray, dim: int) -> np.ndarray:
    return np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1, dim)
