"""Approximate search for large indexes: an HNSW graph over scalar-quantized codes.

Why HNSW: on real sentence vectors (which cluster weakly) an inverted file
had to probe a tenth of its lists for recall@10 of 0.95, a hundred thousand
vectors per query at a million; the graph reaches it visiting a few thousand.
Why scalar codes: each dimension is quantized to ``IndexParams.code_bits``
(6 by default: 64 steps between its observed minimum and maximum), 384 bytes
per 512-d vector instead of 2,048. The codes only choose candidates: scores
the dedupe rules read come from the float32 vectors in SQLite.

Deletes: HNSW cannot take a vector out of its graph, so a deleted vector
becomes a tombstone: its id in the id map is set to -1 (so it survives a
write and a read) and a bitmap of live positions is handed to every search as
an ``IDSelectorBitmap``. Re-adding an id appends a new vector. Once tombstones
pass ``IndexParams.compact_share`` the owner rebuilds the graph in the
background (see ``kbsearch.store.compaction``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, cast

import faiss
import numpy as np

from kbsearch.vector_index.base import FaissBackend, empty_result
from kbsearch.vector_index.params import CODES, IndexParams
from kbsearch.vector_index.predicate import PointFields, Predicate
from kbsearch.vector_index.threads import free_cores, omp_threads


class HnswBackend(FaissBackend):
    """faiss ``IndexIDMap(IndexHNSWSQ)``, searched by position with a live bitmap."""

    kind = "hnsw"

    def __init__(self, dim: int, params: IndexParams, index: faiss.IndexIDMap | None = None) -> None:
        super().__init__(dim, params)
        if index is None:
            qt = CODES[params.code_bits]
            inner: Any = faiss.IndexHNSWSQ(dim, qt, params.hnsw_m, faiss.METRIC_INNER_PRODUCT)  # type: ignore[arg-type]
            inner.hnsw.efConstruction = params.ef_construction
            index = faiss.IndexIDMap(inner)
            index.own_fields = True
            inner.this.disown()  # SWIG ownership: the id map frees the graph
        self._index = index
        self._inner = cast(Any, faiss.downcast_index(index.index))
        self._inner.hnsw.efSearch = params.ef_search  # not kept from the file: the params decide
        self._ids = self._id_view()
        self._dead = int((self._ids < 0).sum())
        self._lookup: tuple[np.ndarray, np.ndarray] | None = None
        self._live_bits: np.ndarray | None = None

    # -- building -----------------------------------------------------------------

    @property
    def trained(self) -> bool:
        return bool(self._inner.is_trained)

    def train(self, sample: np.ndarray) -> None:
        """Learn the quantizer's range per dimension from a sample of the vectors."""
        with omp_threads(free_cores()):
            self._inner.train(np.ascontiguousarray(sample, dtype=np.float32))

    def add(self, ids: np.ndarray, vectors: np.ndarray, fields: Sequence[PointFields] | None = None) -> None:
        if len(ids) == 0:
            return
        if not self.trained:
            self.train(training_sample(vectors, self.params.train_size))
        with omp_threads(free_cores()):
            self._index.add_with_ids(vectors, ids)
        self._ids = self._id_view()  # the id map may have moved as it grew
        self._lookup = self._live_bits = None

    def remove(self, ids: np.ndarray) -> None:
        positions = self._positions(ids)
        if len(positions) == 0:
            return
        self._ids[positions] = -1  # a view of the id map: the tombstone is written to the file too
        self._dead += len(positions)
        self._lookup = self._live_bits = None

    def _id_view(self) -> np.ndarray:
        """The id map's ids, viewed in place: a copy would hold 8 bytes a
        vector twice (12 MB at a million records)."""
        held = self._index.id_map
        if held.size() == 0:
            return np.zeros(0, dtype=np.int64)
        return cast(np.ndarray, faiss.rev_swig_ptr(held.data(), held.size()))

    # -- reading ------------------------------------------------------------------

    @property
    def count(self) -> int:
        return len(self._ids) - self._dead

    @property
    def tombstones(self) -> int:
        return self._dead

    def ids(self) -> np.ndarray:
        return self._ids[self._ids >= 0]

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        positions = self._positions(ids, strict=True)
        out = np.empty((len(positions), self.dim), dtype=np.float32)
        for start in range(0, len(positions), 4096):
            chunk = positions[start : start + 4096]
            out[start : start + len(chunk)] = self._inner.reconstruct_batch(chunk)
        return out

    def search(
        self, queries: np.ndarray, k: int, allowed: np.ndarray | None, where: Predicate | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        if self.count == 0:
            return empty_result(len(queries))
        ef = max(self.params.ef_search, k)
        if allowed is None:
            if self._dead and self._live_bits is None:
                self._live_bits = self._live_bitmap(None)
            return self._search(queries, k, ef, self._live_bits if self._dead else None)
        positions = self._positions(allowed)
        if len(positions) <= self.params.exact_subset_max:
            return self.exact_among(queries, k, self._ids[positions])
        # Few allowed vectors among many: keep more candidates, so about as
        # many allowed ones are weighed as an unfiltered search would.
        share = len(positions) / len(self._ids)
        return self._search(queries, k, min(len(self._ids), math.ceil(ef / share)), self._live_bitmap(positions))

    def _search(self, queries: np.ndarray, k: int, ef: int, bitmap: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        selector = None if bitmap is None else faiss.IDSelectorBitmap(len(self._ids), faiss.swig_ptr(bitmap))
        params = faiss.SearchParametersHNSW(efSearch=ef, sel=selector)  # type: ignore[attr-defined]
        scores, positions = self._inner.search(queries, k, params=params)
        found = np.where(positions >= 0, self._ids[np.maximum(positions, 0)], -1)
        return scores, found

    def _live_bitmap(self, positions: np.ndarray | None) -> np.ndarray:
        """One bit per stored vector, set for the live ones (among ``positions``)."""
        mask = self._ids >= 0
        if positions is not None:
            chosen = np.zeros(len(self._ids), dtype=bool)
            chosen[positions] = True
            mask &= chosen
        return np.packbits(mask, bitorder="little")

    def _positions(self, ids: Iterable[int] | np.ndarray, strict: bool = False) -> np.ndarray:
        """Storage positions of the live ids among ``ids``; ``strict``: all must be held."""
        wanted = np.asarray(ids, dtype=np.int64)
        if self._lookup is None:
            live = np.flatnonzero(self._ids >= 0)
            order = np.argsort(self._ids[live], kind="stable")
            self._lookup = (self._ids[live][order], live[order])
        keys, positions = self._lookup
        at = np.minimum(np.searchsorted(keys, wanted), max(len(keys) - 1, 0))
        held = (keys[at] == wanted) if len(keys) else np.zeros(len(wanted), dtype=bool)
        if strict and not held.all():
            missing = wanted[~held][:3].tolist()
            raise KeyError(f"ids not in the index: {missing}")
        return positions[at[held]]

    # -- files --------------------------------------------------------------------

    def faiss_index(self) -> faiss.Index:
        return self._index

    @classmethod
    def from_faiss(cls, raw: faiss.Index, dim: int, params: IndexParams) -> HnswBackend | None:
        if not isinstance(raw, faiss.IndexIDMap) or isinstance(raw, faiss.IndexIDMap2):
            return None
        if not isinstance(faiss.downcast_index(raw.index), faiss.IndexHNSWSQ):
            return None
        # A graph built with other M or code size still answers correctly; it
        # is read as built, and the next rebuild (a compaction, a reindex)
        # uses today's parameters. Rebuilding it on every open instead would
        # cost minutes per command until a writer saved it.
        return cls(dim, params, raw)


def training_sample(vectors: np.ndarray, size: int) -> np.ndarray:
    if len(vectors) <= size:
        return vectors
    # A fixed seed: the same vectors give the same index, run after run.
    pick = np.random.default_rng(0).choice(len(vectors), size, replace=False)
    return vectors[np.sort(pick)]
