"""Recall of kbsearch's vector index against an exact scan, on the path ``kbsearch search`` takes.

Dense search asks the index for ``(k + excluded) * 4`` passages (40 at
k = 10), groups them by record and scores those records again from their
float32 vectors in SQLite. So the index is timed on that call, and recall@10
is read twice: the index's own first 10 (its codes' order) and the first 10
of its 40 once re-scored exactly, as the search shows them.

Recall is counted two ways. By id, as before: the share of the exact scan's
10 vector ids found. And with ties: a found passage counts when its exact
score reaches the exact 10th score. The corpus holds identical texts under
several records (a sentence that is also a title, a window that repeats), so
a query's 10th place is often shared by several vectors with one score; which
of them an exact scan lists is its own sort order, and a search that returns
another of them is as right. Both are printed; the target is read on ties.

Queries: ``bench/scale.py`` reports on the last 200 held-apart texts
(``corpus.held_out(200)``); the 200 before them (``fit_texts``) are the ones
``IndexParams`` were fitted on, so no reported figure comes from the queries
that chose the parameters.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import corpus
import numpy as np
from benchlib import percentile

FETCH = 40
"""Passages dense search asks the index for at k = 10 (``vector_search._OVERFETCH`` 4)."""
TIE = 1e-5
"""Scores this close to the exact 10th count as tied with it (float32 rounding)."""


def fit_texts(count: int = 200) -> list[str]:
    """Held-apart queries disjoint from the reported ones: parameters are fitted on these."""
    return [text[:80] for text in corpus.held_out(2 * count)[:count]]


@dataclass
class Exact:
    ids: list[list[int]]
    tenth: np.ndarray
    ms: float


def exact_top10(store: Any, queries: np.ndarray) -> Exact:
    """Exact top 10 vector ids per query, the 10th score, and the scan's ms per query."""
    best_scores = np.full((len(queries), 10), -np.inf, dtype=np.float32)
    best_ids = np.full((len(queries), 10), -1, dtype=np.int64)
    started = time.perf_counter()
    for ids, vectors in store.cache._vector_chunks(store.model, store.dim):
        scores = queries @ vectors.T
        both_scores = np.concatenate([best_scores, scores], axis=1)
        both_ids = np.concatenate([best_ids, np.broadcast_to(ids, scores.shape)], axis=1)
        top = np.argsort(-both_scores, axis=1, kind="stable")[:, :10]
        best_scores, best_ids = np.take_along_axis(both_scores, top, 1), np.take_along_axis(both_ids, top, 1)
    elapsed = (time.perf_counter() - started) * 1000 / len(queries)
    return Exact(best_ids.tolist(), best_scores[:, 9].copy(), elapsed)


def exact_scores(store: Any, query: np.ndarray, vids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(vector ids, exact scores) of ``vids``, from their float32 vectors in SQLite."""
    from kbsearch.records import MAX_PASSAGES

    wanted = np.asarray([v for v in vids.tolist() if v >= 0], dtype=np.int64)
    held, vectors = store.cache.passage_vectors(
        sorted({int(v) // MAX_PASSAGES for v in wanted}), store.model, store.dim
    )
    keep = np.isin(held, wanted)
    return held[keep], vectors[keep] @ query


def measure(store: Any, queries: np.ndarray, exact: Exact, fetch: int = FETCH) -> dict:
    """Time the index call dense search makes, then read its recall (untimed)."""
    from kbsearch.records import MAX_PASSAGES

    index = store.vector_index
    times, found = [], []
    for query in queries:
        started = time.perf_counter()
        _, ids = index.search(query[None, :], fetch)
        times.append((time.perf_counter() - started) * 1000)
        found.append(ids[0])
    raw_ids, raw_ties, ids_after, ties_after, rescore_ms = [], [], [], [], []
    for i, (query, hits) in enumerate(zip(queries, found, strict=True)):
        started = time.perf_counter()
        store.score_records(
            sorted({int(v) // MAX_PASSAGES for v in hits.tolist() if v >= 0}), query
        )  # the search's own call
        rescore_ms.append((time.perf_counter() - started) * 1000)
        vids, scores = exact_scores(store, query, hits)
        by_id = dict(zip(vids.tolist(), scores.tolist(), strict=True))
        first = [v for v in hits.tolist()[:10] if v >= 0]
        after = vids[np.argsort(-scores, kind="stable")[:10]].tolist()
        raw_ids.append(_share(first, exact.ids[i]))
        ids_after.append(_share(after, exact.ids[i]))
        raw_ties.append(sum(by_id[v] >= exact.tenth[i] - TIE for v in first) / 10)
        ties_after.append(sum(by_id[v] >= exact.tenth[i] - TIE for v in after) / 10)
    return {
        "vectors": index.count,
        "kind": index.kind,
        "fetch": fetch,
        "exact_ms": exact.ms,
        "p50": percentile(times, 0.5),
        "p99": percentile(times, 0.99),
        "rescore_p50": percentile(rescore_ms, 0.5),
        "recall10": float(np.mean(raw_ids)),
        "recall10_ties": float(np.mean(raw_ties)),
        "rescored10": float(np.mean(ids_after)),
        "rescored10_ties": float(np.mean(ties_after)),
    }


def _share(found: list[int], exact: list[int]) -> float:
    return len(set(found) & set(exact)) / 10
