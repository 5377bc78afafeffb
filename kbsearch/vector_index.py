"""The FAISS side of the store: vectors keyed by SQLite row ids.

Vectors are unit length (see ``kbsearch.embed.normalize_rows``), so the inner
product this index ranks by is cosine similarity.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar, overload

import faiss
import numpy as np

from kbsearch import ann
from kbsearch.errors import KbError

T = TypeVar("T")

# One query at a time is kbsearch's common case, and for it OpenMP's thread
# start-up and spin-waiting cost far more than the scan itself
# (docs/performance.md). Batch callers may raise it.
faiss.omp_set_num_threads(1)


class VectorIndex:
    """Inner-product search over vectors whose ids are the passages' vector ids.

    Exact (a flat scan) below ``ann.IVF_MIN`` vectors, IVF at and above it;
    the switch happens on add and remove, so callers never choose.
    """

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._index: faiss.Index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))

    @classmethod
    def build(cls, dim: int, ids: np.ndarray, vectors: np.ndarray) -> VectorIndex:
        index = cls(dim)
        index.add(ids, vectors)
        return index

    @classmethod
    def from_chunks(
        cls, dim: int, total: int, chunks: Iterable[tuple[np.ndarray, np.ndarray]], sample: Callable[[int], np.ndarray]
    ) -> VectorIndex:
        """Build from (ids, vectors) chunks without holding every vector twice:
        the kind is chosen from ``total`` up front, and an IVF index is trained
        on ``sample(size)`` (random stored vectors) before the chunks stream in."""
        index = cls(dim)
        if total >= ann.IVF_MIN:
            ivf = ann.empty_ivf(dim, total)
            ann.train_ivf(ivf, sample(ann.training_size(ivf)))
            index._index = ivf
        for ids, vectors in chunks:
            ann.add_chunk(index._index, np.ascontiguousarray(ids, dtype=np.int64), vectors)
        return index

    @property
    def kind(self) -> str:
        """``flat`` (exact) or ``ivf`` (approximate)."""
        return "ivf" if isinstance(self._index, faiss.IndexIVF) else "flat"

    @property
    def count(self) -> int:
        return int(self._index.ntotal)

    def ids(self) -> np.ndarray:
        if isinstance(self._index, faiss.IndexIVF):
            return _ivf_ids(self._index)
        return faiss.vector_to_array(self._index.id_map).astype(np.int64)  # type: ignore[attr-defined]

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        if len(ids) == 0:
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(ids), self.dim)
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        if self.kind == "flat" and self.count + len(ids) >= ann.IVF_MIN:
            self._rebuild(np.concatenate([self.ids(), ids]), np.concatenate([self.vectors(self.ids()), vectors]))
            return
        self._index.add_with_ids(vectors, ids)
        if self.kind == "ivf" and self.count >= ann.RETRAIN_GROWTH * ann.trained_size(self._ivf):
            self._rebuild_from_self()

    def remove(self, ids: np.ndarray) -> None:
        if len(ids):
            # faiss's SWIG wrapper takes an id array here; its stubs only know IDSelector.
            self._index.remove_ids(np.ascontiguousarray(ids, dtype=np.int64))  # type: ignore[arg-type]
        if self.kind == "ivf" and self.count < ann.FLAT_BELOW:
            self._rebuild_from_self()

    def search(self, queries: np.ndarray, k: int, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Top-k (scores, ids) per query row; ``allowed`` restricts the candidates
        inside the search, so a filtered query still gets k hits when k exist."""
        queries = np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self.dim)
        if len(queries) == 1 and faiss.omp_get_max_threads() != 1:
            # OpenMP's thread count belongs to each thread, and the one set at
            # import is the main thread's: a query on a server's reader thread
            # or the TUI's gateway took all cores, 144 ms instead of 25 ms over
            # 31k vectors on the busy machine.
            faiss.omp_set_num_threads(1)
        k = max(1, min(k, self.count if allowed is None else len(allowed)))
        if self.count == 0 or (allowed is not None and len(allowed) == 0):
            empty = np.zeros((len(queries), 0))
            return empty.astype(np.float32), empty.astype(np.int64)
        if allowed is None:
            return self._index.search(queries, k)
        if self.kind == "ivf" and len(allowed) <= ann.EXACT_SUBSET_MAX:
            return self._exact_among(queries, k, np.asarray(allowed, dtype=np.int64))
        params: faiss.SearchParameters
        if self.kind == "ivf":
            params = ann.filtered_params(self._ivf, allowed, self.count)
        else:
            selector = faiss.IDSelectorBatch(np.ascontiguousarray(allowed, dtype=np.int64))
            params = faiss.SearchParameters(sel=selector)  # type: ignore[call-arg]  # missing from the stubs
        return self._index.search(queries, k, params=params)

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        if len(ids) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._index.reconstruct_batch(np.ascontiguousarray(ids, dtype=np.int64))

    def scores_for(self, ids: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Cosine of ``query`` with the stored vectors of ``ids``."""
        if len(ids) == 0:
            return np.zeros(0, dtype=np.float32)
        return self.vectors(ids) @ np.asarray(query, dtype=np.float32)

    def write(self, path: Path) -> str:
        """Write the faiss file to ``path`` as faiss streams it, with no image
        in memory, and return its sha256, computed on the way."""
        digest = hashlib.sha256()
        with open(path, "wb") as handle:

            def sink(chunk: bytes) -> None:
                handle.write(chunk)
                digest.update(chunk)

            writer = faiss.PyCallbackIOWriter(sink)  # type: ignore[attr-defined]  # not in the stubs
            faiss.write_index(self._index, writer)
            del writer  # flushes its last buffer into ``sink``
        return digest.hexdigest()

    @classmethod
    def read(cls, path: Path, dim: int) -> VectorIndex:
        """Load a faiss file straight from disk: no second copy in memory."""
        try:
            raw = faiss.read_index(str(path))
        except RuntimeError as err:
            raise KbError(
                f"the vector file is unreadable: {str(err).splitlines()[0][:120]}",
                path=str(path),
                hint="run 'kbsearch reindex'",
            ) from err
        return cls._wrap(raw, dim, str(path))

    def copy(self) -> VectorIndex:
        """An independent copy (a memory copy, no file): for readers to search
        while this one goes on changing."""
        return self._wrap(faiss.clone_index(self._index), self.dim, "a copy")

    @classmethod
    def _wrap(cls, raw: faiss.Index, dim: int, origin: str) -> VectorIndex:
        if raw.d != dim:
            raise KbError(
                f"the vector file holds {raw.d}-d vectors, the index expects {dim}",
                path=origin,
                hint="run 'kbsearch reindex'",
            )
        index = cls(dim)
        index._index = raw
        if isinstance(raw, faiss.IndexIVF):
            raw.nprobe = ann.probes(raw.nlist)  # not part of faiss's file format
        return index

    @property
    def _ivf(self) -> faiss.IndexIVF:
        assert isinstance(self._index, faiss.IndexIVF)
        return self._index

    def _exact_among(self, queries: np.ndarray, k: int, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        scores = queries @ self.vectors(allowed).T
        top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(scores, top, axis=1).astype(np.float32), allowed[top]

    def _rebuild_from_self(self) -> None:
        ids = self.ids()
        self._rebuild(ids, self.vectors(ids))

    def _rebuild(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        if len(ids) >= ann.IVF_MIN:
            self._index = ann.build_ivf(self.dim, ids, vectors)
            return
        self._index = faiss.IndexIDMap2(faiss.IndexFlatIP(self.dim))
        if len(ids):
            self._index.add_with_ids(vectors, ids)


def _ivf_ids(index: faiss.IndexIVF) -> np.ndarray:
    lists = index.invlists
    assert lists is not None
    parts = [
        faiss.rev_swig_ptr(lists.get_ids(i), lists.list_size(i)).copy()
        for i in range(index.nlist)
        if lists.list_size(i)
    ]
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@overload
def write_atomic(path: Path, data: bytes | memoryview) -> None: ...
@overload
def write_atomic(path: Path, data: Callable[[Path], T]) -> T: ...
def write_atomic(path: Path, data: bytes | memoryview | Callable[[Path], T]) -> T | None:
    """Write a temp file, fsync, rename over the old one: a crash leaves the
    old file or the new one, never half of one. ``data`` is the bytes, or a
    function that writes the temp file itself and returns a value passed back
    here (a large faiss index streams to disk and returns its checksum)."""
    tmp = path.with_name(path.name + ".tmp")
    result = None
    if callable(data):
        result = data(tmp)
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
    else:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)
    return result
