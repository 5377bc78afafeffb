"""Every record's nearest records at once: the candidate pairs of ``audit``.

Audit compares each record with its nearest neighbours. One flat search per
record pays Python, SQLite and OpenMP start-up for each of 100k queries and
scores every passage; here one exact k-nearest-neighbour search over one
vector per record (the whole record, the vector the dedupe rules score)
runs in batches of queries, so FAISS turns each batch into one BLAS product.

The result is exact: a temporary flat index, not an approximate graph, so a
pair is missed only when both records have ``k`` nearer neighbours. That
costs n² products: past the store's approximate threshold (a million records
would take hours) ``index_pairs`` asks the store's own HNSW index
instead, chunk by chunk, in batches on the free cores.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import faiss
import numpy as np
from pydantic import BaseModel, ConfigDict

from kbsearch.settings import settings
from kbsearch.store.sql import vector_rowids
from kbsearch.vector_index import VectorIndex
from kbsearch.vector_index.threads import all_cores, free_cores, omp_threads

# Queries per FAISS call: large enough that the BLAS product dominates, small
# enough that the batch's k-best heaps stay a few MB.
BATCH = 4096
# At or above this floor, pairs are few: they are found from the upper
# triangle of the cosine matrix (half the products of a k-nearest search) and
# then capped at k per record. Below it, a k-nearest search bounds the work.
SPARSE_FLOOR = 0.5
# FAISS scores in float32 and ``compare`` recomputes the cosine with NumPy: a
# pair right at a threshold must not be lost to the last bit.
_SLACK = 1e-5


class NeighbourPairs(BaseModel):
    """Unordered pairs of row numbers (``left < right``) and their cosine."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    left: np.ndarray
    right: np.ndarray
    cosine: np.ndarray

    def __len__(self) -> int:
        return len(self.left)

    def as_set(self) -> set[tuple[int, int]]:
        return set(zip(self.left.tolist(), self.right.tolist(), strict=True))


def neighbour_pairs(
    vectors: np.ndarray, k: int, floor: float, *, batch: int = BATCH, threads: int | None = None
) -> NeighbourPairs:
    """Pairs of rows where one is among the other's ``k`` nearest rows and their
    cosine is at least ``floor``; rows are unit vectors, so inner product is cosine.

    A pair found from both sides is reported once.
    """
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if len(vectors) < 2 or k < 1:
        return _pairs([], [], [])
    if floor >= SPARSE_FLOOR:
        with blas_threads(threads if threads is not None else default_threads()):
            return _capped(_pairs_above(vectors, floor, batch), k, len(vectors))
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(vectors)
    # k + 1: each row finds itself, usually first.
    fetch = min(k + 1, len(vectors))
    lefts, rights, scores = [], [], []
    with omp_threads(threads if threads is not None else default_threads()):
        for start in range(0, len(vectors), batch):
            found_scores, found_ids = index.search(vectors[start : start + batch], fetch)
            rows = np.arange(start, start + len(found_ids), dtype=np.int64)[:, None]
            keep = (found_ids != rows) & (found_ids >= 0) & (found_scores >= floor - _SLACK)
            mine = np.broadcast_to(rows, found_ids.shape)[keep]
            lefts.append(np.minimum(mine, found_ids[keep]))
            rights.append(np.maximum(mine, found_ids[keep]))
            scores.append(found_scores[keep])
    return _unique(np.concatenate(lefts), np.concatenate(rights), np.concatenate(scores), len(vectors))


class RowsOf:
    """Vector id → the row of its record among ascending row ids (-1: not among them)."""

    def __init__(self, rowids: np.ndarray) -> None:
        self.rowids = rowids

    def __call__(self, vector_ids: np.ndarray) -> np.ndarray:
        rowids = vector_rowids(vector_ids)
        if not len(self.rowids):
            return np.full(rowids.shape, -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.rowids, rowids), len(self.rowids) - 1)
        return np.where((self.rowids[at] == rowids) & (vector_ids >= 0), at, -1)


def index_pairs(
    index: VectorIndex,
    vectors: np.ndarray,
    rows: np.ndarray,
    rows_of: RowsOf,
    k: int,
    floor: float,
    *,
    batch: int = BATCH,
) -> NeighbourPairs:
    """The pairs of some rows with their ``k`` nearest other rows, through the
    index: ``vectors[i]`` is row ``rows[i]``'s whole vector. Audit calls this
    chunk by chunk, so the whole matrix is never held at once. Pairs are in
    the order found, not yet unique (see ``unique_pairs``)."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    fetch = (k + 1) * 4  # a record's title and claims come back beside its whole text
    lefts, rights, scores = [], [], []
    with omp_threads(free_cores()):
        for start in range(0, len(vectors), batch):
            found_scores, found_ids = index.search(vectors[start : start + batch], fetch)
            found_rows = rows_of(found_ids)
            for offset, (row_scores, row_rows) in enumerate(zip(found_scores, found_rows, strict=True)):
                me = int(rows[start + offset])
                for other, score in _best_records(row_rows, row_scores, me, k):
                    if score >= floor - _SLACK:
                        lefts.append(min(me, other))
                        rights.append(max(me, other))
                        scores.append(score)
    return _pairs(lefts, rights, scores)


def unique_pairs(found: list[NeighbourPairs], n: int) -> NeighbourPairs:
    """Chunks of ``index_pairs`` as one set of pairs, each once (first found kept)."""
    if not found:
        return _pairs([], [], [])
    left = np.concatenate([f.left for f in found])
    right = np.concatenate([f.right for f in found])
    return _unique(left, right, np.concatenate([f.cosine for f in found]), n)


def _best_records(rows: np.ndarray, scores: np.ndarray, me: int, k: int) -> list[tuple[int, float]]:
    """The ``k`` best other rows among one query's passage hits, best first."""
    best: dict[int, float] = {}
    for row, score in zip(rows.tolist(), scores.tolist(), strict=True):
        if row >= 0 and row != me and row not in best:
            best[row] = score  # hits come best first: the first is the record's best passage
            if len(best) == k:
                break
    return list(best.items())


def _pairs_above(vectors: np.ndarray, floor: float, block: int) -> NeighbourPairs:
    """Every pair at or above ``floor``, from the upper triangle of the cosine
    matrix only: each block product is computed once, not once per side."""
    lefts, rights, scores = [], [], []
    for start in range(0, len(vectors), block):
        rows = vectors[start : start + block]
        for other in range(start, len(vectors), block):
            products = rows @ vectors[other : other + block].T
            left, right = np.nonzero(products >= floor - _SLACK)
            if other == start:
                upper = left < right
                left, right = left[upper], right[upper]
            lefts.append(left + start)
            rights.append(right + other)
            scores.append(products[left, right])
    return _pairs(np.concatenate(lefts), np.concatenate(rights), np.concatenate(scores))


def _capped(found: NeighbourPairs, k: int, n: int) -> NeighbourPairs:
    """Keep a pair when it is among the ``k`` best of either of its rows, as
    the k-nearest search would."""
    ends = np.concatenate([found.left, found.right])
    scores = np.concatenate([found.cosine, found.cosine])
    pair = np.concatenate([np.arange(len(found))] * 2)
    order = np.lexsort((-scores, ends))
    ends, pair = ends[order], pair[order]
    group_start = np.searchsorted(ends, ends, side="left")
    rank = np.arange(len(ends)) - group_start
    keep = np.zeros(len(found), dtype=bool)
    keep[pair[rank < k]] = True
    return _pairs(found.left[keep], found.right[keep], found.cosine[keep])


def _unique(left: np.ndarray, right: np.ndarray, cosine: np.ndarray, n: int) -> NeighbourPairs:
    _, first = np.unique(left * n + right, return_index=True)
    return _pairs(left[first], right[first], cosine[first])


def _pairs(left: object, right: object, cosine: object) -> NeighbourPairs:
    return NeighbourPairs(
        left=np.asarray(left, dtype=np.int64),
        right=np.asarray(right, dtype=np.int64),
        cosine=np.asarray(cosine, dtype=np.float32),
    )


def default_threads() -> int:
    """``$KBSEARCH_AUDIT_THREADS``, else every core: a batch is big enough to share."""
    return settings().audit_threads or all_cores()


@contextmanager
def blas_threads(count: int) -> Iterator[None]:
    """NumPy's BLAS threads for the block products, restored afterwards."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=count, user_api="blas"):
        yield
