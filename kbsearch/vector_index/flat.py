"""Exact search: every vector scored, in float32. The backend for small indexes."""

from __future__ import annotations

from collections.abc import Sequence

import faiss
import numpy as np

from kbsearch.vector_index.base import FaissBackend, empty_result
from kbsearch.vector_index.params import IndexParams
from kbsearch.vector_index.predicate import PointFields, Predicate


class FlatBackend(FaissBackend):
    """A flat inner-product scan with an id map; removes ids in place."""

    kind = "flat"

    def __init__(self, dim: int, params: IndexParams) -> None:
        super().__init__(dim, params)
        self._index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))

    @property
    def count(self) -> int:
        return int(self._index.ntotal)

    def ids(self) -> np.ndarray:
        return faiss.vector_to_array(self._index.id_map).astype(np.int64)

    def add(self, ids: np.ndarray, vectors: np.ndarray, fields: Sequence[PointFields] | None = None) -> None:
        if len(ids):
            self._index.add_with_ids(vectors, ids)

    def remove(self, ids: np.ndarray) -> None:
        if len(ids):
            # faiss's SWIG wrapper takes an id array here; its stubs only know IDSelector.
            self._index.remove_ids(np.ascontiguousarray(ids, dtype=np.int64))  # type: ignore[arg-type]

    def search(
        self, queries: np.ndarray, k: int, allowed: np.ndarray | None, where: Predicate | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        if self.count == 0:
            return empty_result(len(queries))
        if allowed is None:
            return self._index.search(queries, k)
        selector = faiss.IDSelectorBatch(np.ascontiguousarray(allowed, dtype=np.int64))
        params = faiss.SearchParameters(sel=selector)  # type: ignore[call-arg]  # missing from the stubs
        return self._index.search(queries, k, params=params)

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        if len(ids) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._index.reconstruct_batch(np.ascontiguousarray(ids, dtype=np.int64))

    def faiss_index(self) -> faiss.Index:
        return self._index

    @classmethod
    def from_faiss(cls, raw: faiss.Index, dim: int, params: IndexParams) -> FlatBackend | None:
        if not isinstance(raw, faiss.IndexIDMap2) or not isinstance(faiss.downcast_index(raw.index), faiss.IndexFlatIP):
            return None
        backend = cls(dim, params)
        backend._index = raw
        return backend
