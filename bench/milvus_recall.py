"""Dense search on Milvus Lite beside kbsearch's HNSW, on 100k vectors of real text, in one run.

    python -m bench milvus_recall [--records 100000] [--queries 200]

The vectors are the whole-text vectors of the first ``--records`` records of
the bench corpus (``bench/corpus.py``: real sentences of ../shared/eval, its
vectors encoded once by the default model, use-multilingual-v3, 512-d, and
cached outside the project). Queries are held-apart texts no record holds,
cut to 80 characters as a typed query is, encoded by the same model.

Both indexes get the same vectors and ids and the same graph parameters
(``IndexParams``). Each answers every query for its top 40 through
``VectorBackend.search``, the call the store makes at k = 10. Recall@10 is the
share of an exact float32 scan's 10 ids found, read twice: in the backend's
own first 10, and in its 40 re-scored from the float32 vectors, which is what
``kbsearch search`` shows whatever the backend. The time is the backend call
alone (Milvus Lite: the gRPC round trip into the engine running in this
process), p50 and p90 over the queries.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import corpus
import numpy as np
from benchlib import percentile

from kbsearch.records import Kind, Record
from kbsearch.vector_index import IndexParams
from kbsearch.vector_index.base import VectorBackend
from kbsearch.vector_index.hnsw import HnswBackend
from kbsearch.vector_index.milvus import MilvusBackend, connect
from kbsearch.vector_index.predicate import PointFields

FETCH = 40
"""Passages dense search asks the backend for at k = 10, before it re-scores them exactly."""


def corpus_vectors(records: int, cached: bool) -> np.ndarray:
    """Each record's whole-text vector, from the corpus's vector cache;
    ``cached``: only the records whose vector is cached (while it fills)."""
    rows = corpus.corpus(records)
    hashes = [corpus.text_hash(Record(id=r.id, kind=Kind(r.kind), text=r.text).embed_text()) for r in rows]
    found = corpus.stored_vectors(corpus.vector_db(), hashes)
    missing = sum(1 for h in hashes if h not in found)
    if cached:
        hashes = [h for h in hashes if h in found]
    elif missing:
        hint = f"python -m bench corpus --records {records} --encode"
        raise SystemExit(f"{missing:,} vectors are not cached: run '{hint}'")
    return np.stack([np.frombuffer(found[h], dtype=np.float32) for h in hashes])


def query_vectors(count: int) -> np.ndarray:
    from kbsearch.embed import load_encoder
    from kbsearch.models import resolve_model

    texts = [text[:80] for text in corpus.held_out(count)]
    return load_encoder(resolve_model(corpus.MODEL)).encode(texts).astype(np.float32)


def measure(backend: VectorBackend, queries: np.ndarray, exact: np.ndarray, vectors: np.ndarray) -> dict[str, float]:
    """Time of the top-``FETCH`` call; recall@10 of its own first 10, and of its
    ``FETCH`` re-scored from float32 vectors (what ``kbsearch search`` shows)."""
    times, own, rescored = [], [], []
    for query, truth in zip(queries, exact, strict=True):
        started = time.perf_counter()
        _, found = backend.search(query[None, :], FETCH, None)
        times.append((time.perf_counter() - started) * 1000)
        found_ids = found[0][found[0] >= 0]
        own.append(len(set(found_ids[:10].tolist()) & set(truth.tolist())) / 10)
        exact_scores = vectors[_row_of(found_ids)] @ query
        shown = found_ids[np.argsort(-exact_scores, kind="stable")[:10]]
        rescored.append(len(set(shown.tolist()) & set(truth.tolist())) / 10)
    return {
        "p50": percentile(times, 0.5),
        "p90": percentile(times, 0.9),
        "recall": float(np.mean(own)),
        "rescored": float(np.mean(rescored)),
    }


def _row_of(ids: np.ndarray) -> np.ndarray:
    return (ids - 1) // 64  # the inverse of the ids main() gives


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--cached", action="store_true", help="only the records whose vector is cached")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    vectors = corpus_vectors(args.records, args.cached)
    ids = np.arange(len(vectors), dtype=np.int64) * 64 + 1  # as the store packs a record's whole-text passage
    queries = query_vectors(args.queries)
    exact = ids[np.argsort(-(queries @ vectors.T), axis=1, kind="stable")[:, :10]]
    params = IndexParams()
    rows: dict[str, dict[str, float]] = {}

    started = time.perf_counter()
    hnsw = HnswBackend(vectors.shape[1], params)
    hnsw.add(ids, vectors)
    built = time.perf_counter() - started
    rows["kbsearch HNSW (faiss, 6-bit codes)"] = {**measure(hnsw, queries, exact, vectors), "build": built}

    folder = Path(tempfile.mkdtemp(prefix="milvus-bench-"))
    uri = str(folder / "vectors.db")
    try:
        started = time.perf_counter()
        milvus = MilvusBackend(vectors.shape[1], params, client=connect(uri, None), collection="bench", uri=uri)
        fields = [PointFields("increment")] * len(ids)
        milvus.upsert(ids, vectors, fields, [""] * len(ids))
        milvus.settle()
        built = time.perf_counter() - started
        measure(milvus, queries[:5], exact[:5], vectors)  # the first searches load the collection's segments
        rows["Milvus Lite (HNSW, float32)"] = {**measure(milvus, queries, exact, vectors), "build": built}
        milvus.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    print(
        f"\n{len(ids):,} vectors (512-d, real text), {len(queries)} held-apart queries, top 10, load "
        f"{os.getloadavg()[0]:.1f}\n"
    )
    print(
        f"| backend | build (s) | top-{FETCH} p50 (ms) | p90 (ms) | recall@10, own order | re-scored, as shown |"
        "\n|---|---:|---:|---:|---:|---:|"
    )
    for name, row in rows.items():
        times = f"{row['build']:.0f} | {row['p50']:.2f} | {row['p90']:.2f}"
        print(f"| {name} | {times} | {row['recall']:.3f} | {row['rescored']:.3f} |")


if __name__ == "__main__":
    main()
