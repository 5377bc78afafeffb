"""The approximate index kbsearch switches to past ``IVF_MIN`` vectors.

Why IVF and not HNSW: records are deleted and replaced on every re-ingest of
an edited briefing, and faiss's IVF removes ids in place (with a hash-table
direct map, which also keeps ``reconstruct`` by id), while HNSW cannot remove
at all and would need tombstones and periodic rebuilds. IVF also builds
several times faster. Vectors are stored as float16: half the memory of
float32, and the cosine moves by about 1e-4, far below any threshold.

The numbers below were chosen with ``bench/scale.py`` (docs/performance.md).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from contextlib import contextmanager

import faiss
import numpy as np

IVF_MIN = 100_000
"""Below this many vectors an exact scan is fast enough (a few ms per query)
and needs no training; at and above it, IVF."""
FLAT_BELOW = IVF_MIN // 2
"""An IVF index that shrinks below this goes back to exact: the gap keeps an
index near the boundary from flipping back and forth."""
RETRAIN_GROWTH = 4
"""Retrain the coarse quantizer when the index has grown this many times
past the size it was trained at: the cells get too full to probe cheaply."""
TRAIN_POINTS_PER_LIST = 40
"""faiss's k-means wants at least 39 points per centroid; more costs time
without changing recall measurably."""
PROBE_SHARE = 1 / 10
"""Share of the lists each query probes (at least ``MIN_PROBES``). Sentence
vectors cluster weakly: on 155k real USE passage vectors, probing 1/64 of the
lists found 0.85 of the exact top 10, 1/16 found 0.95 and 1/10 found 0.965,
at 0.2, 0.6 and 1.0 ms per query (bench/scale.py, docs/performance.md)."""
MIN_PROBES = 24
EXACT_SUBSET_MAX = 20_000
"""A filter that leaves at most this many vectors is answered exactly from
the stored vectors: IVF would probe its few cells and miss most of them."""


def list_count(vectors: int) -> int:
    """Number of inverted lists: about 4·√n, the usual faiss guidance."""
    return max(16, int(4 * math.sqrt(max(vectors, 1))))


def probes(lists: int) -> int:
    return min(lists, max(MIN_PROBES, int(lists * PROBE_SHARE)))


def build_ivf(dim: int, ids: np.ndarray, vectors: np.ndarray) -> faiss.IndexIVFScalarQuantizer:
    index = empty_ivf(dim, len(ids))
    train_ivf(index, _training_sample(vectors, training_size(index)))
    with omp_threads(all_cores()):
        index.add_with_ids(vectors, ids)
    return index


def empty_ivf(dim: int, vectors: int) -> faiss.IndexIVFScalarQuantizer:
    """An untrained IVF index sized for ``vectors`` vectors."""
    lists = list_count(vectors)
    quantizer = faiss.IndexFlatIP(dim)
    index = faiss.IndexIVFScalarQuantizer(
        quantizer, dim, lists, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT
    )
    # The vectors themselves, not residuals: float16 of a unit vector keeps
    # the cosine exact to ~1e-4, and there is no residual table to keep.
    index.by_residual = False
    index.own_fields = True
    quantizer.this.disown()  # type: ignore[attr-defined]  # SWIG ownership, not in the stubs
    index.nprobe = probes(lists)
    return index


def training_size(index: faiss.IndexIVF) -> int:
    return index.nlist * TRAIN_POINTS_PER_LIST


def train_ivf(index: faiss.IndexIVFScalarQuantizer, sample: np.ndarray) -> None:
    with omp_threads(all_cores()):
        index.train(np.ascontiguousarray(sample, dtype=np.float32))
    index.set_direct_map_type(faiss.DirectMap.Hashtable)  # type: ignore[attr-defined]  # not in the stubs


def add_chunk(index: faiss.Index, ids: np.ndarray, vectors: np.ndarray) -> None:
    with omp_threads(all_cores()):
        index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), ids)


def trained_size(index: faiss.IndexIVF) -> int:
    """The size the lists were made for (their count inverts ``list_count``)."""
    return int((index.nlist / 4) ** 2)


def _training_sample(vectors: np.ndarray, size: int) -> np.ndarray:
    if len(vectors) <= size:
        return vectors
    # A fixed seed: the same vectors give the same index, run after run.
    pick = np.random.default_rng(0).choice(len(vectors), size, replace=False)
    return vectors[np.sort(pick)]


def filtered_params(index: faiss.IndexIVF, allowed: np.ndarray, total: int) -> faiss.SearchParametersIVF:
    """Probe more lists when a filter keeps a small share of the vectors, so
    that about as many allowed vectors are scanned as without the filter."""
    share = max(len(allowed) / max(total, 1), 1e-6)
    nprobe = min(index.nlist, math.ceil(index.nprobe / share))
    selector = faiss.IDSelectorBatch(np.ascontiguousarray(allowed, dtype=np.int64))
    return faiss.SearchParametersIVF(sel=selector, nprobe=nprobe)  # type: ignore[call-arg]


def all_cores() -> int:
    return len(os.sched_getaffinity(0))


@contextmanager
def omp_threads(count: int) -> Iterator[None]:
    """faiss's OpenMP thread count for a bulk job, restored afterwards:
    ``kbsearch.vector_index`` keeps it at 1 for single queries."""
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(count)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(before)
