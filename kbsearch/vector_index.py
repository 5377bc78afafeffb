"""The FAISS side of the store: vectors keyed by SQLite row ids.

Vectors are unit length (see ``kbsearch.embed.normalize_rows``), so the inner
product this index ranks by is cosine similarity.
"""

from __future__ import annotations

import os
from pathlib import Path

import faiss
import numpy as np

from kbsearch.errors import KbError


class VectorIndex:
    """An exact inner-product index whose ids are the records' SQLite rowids."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))

    @classmethod
    def build(cls, dim: int, ids: np.ndarray, vectors: np.ndarray) -> VectorIndex:
        index = cls(dim)
        index.add(ids, vectors)
        return index

    @property
    def count(self) -> int:
        return int(self._index.ntotal)

    def ids(self) -> np.ndarray:
        return faiss.vector_to_array(self._index.id_map).astype(np.int64)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        if len(ids) == 0:
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(ids), self.dim)
        self._index.add_with_ids(vectors, np.ascontiguousarray(ids, dtype=np.int64))

    def remove(self, ids: np.ndarray) -> None:
        if len(ids):
            self._index.remove_ids(np.ascontiguousarray(ids, dtype=np.int64))

    def search(self, queries: np.ndarray, k: int,
               allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Top-k (scores, ids) per query row; ``allowed`` restricts the candidates
        inside the search, so a filtered query still gets k hits when k exist."""
        queries = np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self.dim)
        k = max(1, min(k, self.count if allowed is None else len(allowed)))
        if self.count == 0 or (allowed is not None and len(allowed) == 0):
            empty = np.zeros((len(queries), 0))
            return empty.astype(np.float32), empty.astype(np.int64)
        params = None
        if allowed is not None:
            selector = faiss.IDSelectorBatch(np.ascontiguousarray(allowed, dtype=np.int64))
            params = faiss.SearchParameters(sel=selector)
        if len(queries) > 1:
            scores, ids = self._index.search(queries, k, params=params)
            return scores, ids
        # One query over an exact index is a few milliseconds of work; waking an
        # OpenMP team for it costs several times that on a busy machine.
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)
        try:
            scores, ids = self._index.search(queries, k, params=params)
        finally:
            faiss.omp_set_num_threads(threads)
        return scores, ids

    def scores_for(self, ids: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Cosine of ``query`` with the stored vectors of ``ids``."""
        if len(ids) == 0:
            return np.zeros(0, dtype=np.float32)
        vectors = self._index.reconstruct_batch(np.ascontiguousarray(ids, dtype=np.int64))
        return vectors @ np.asarray(query, dtype=np.float32)

    def to_bytes(self) -> bytes:
        return faiss.serialize_index(self._index).tobytes()

    @classmethod
    def from_bytes(cls, data: bytes, dim: int, origin: str) -> VectorIndex:
        try:
            raw = faiss.deserialize_index(np.frombuffer(data, dtype=np.uint8))
        except RuntimeError as err:
            raise KbError(f"the vector file is unreadable: {str(err).splitlines()[0][:120]}",
                          path=origin, hint="run 'kbsearch reindex'") from err
        if raw.d != dim:
            raise KbError(f"the vector file holds {raw.d}-d vectors, the index expects {dim}",
                          path=origin, hint="run 'kbsearch reindex'")
        index = cls(dim)
        index._index = raw
        return index


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """Write a temp file, fsync, rename over the old one: a crash leaves the
    old file or the new one, never half of one."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)
