"""How the HNSW index's numbers were chosen: efConstruction, efSearch and the code size.

    python bench/hnsw_params.py [--vectors 200000] [--queries 300]
    python bench/hnsw_params.py --index DIR [--ef 64,128,256] [--queries-set fit|report]

Reads a sample of the bench corpus's cached vectors (``bench/corpus.py``;
real text, the default model), holds ``--queries`` of them apart as queries
and indexes the rest. Prints, for each setting, the build time and per-query
p50 (one thread) and recall@10 against an exact scan of the same vectors.
This is where the defaults of ``IndexParams`` were fitted; the 1M rows of
``bench/scale_million.py`` report them on other queries (held-apart texts).

With ``--index``: kbsearch's own index of a built index folder (the one
``bench/scale_million.py`` imports), searched with each ``efSearch`` through
``IndexParams`` as dense search calls it, against an exact scan of the
float32 vectors in SQLite (``bench/index_recall.py``). ``--queries-set fit``
(the default) uses the 200 held-apart texts the defaults are fitted on;
``report`` the 200 that ``bench/scale.py`` reports on.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import faiss
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus


def sample(count: int, queries: int) -> tuple[np.ndarray, np.ndarray]:
    rows = corpus.vector_db().execute("SELECT vector FROM vectors LIMIT ? OFFSET 300000", (count + queries,))
    vectors = np.frombuffer(b"".join(r[0] for r in rows), dtype=np.float32).reshape(-1, 512)
    order = np.random.default_rng(0).permutation(len(vectors))
    return np.ascontiguousarray(vectors[order[queries:]]), vectors[order[:queries]]


def measure(index: Any, queries: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    faiss.omp_set_num_threads(1)
    times, found = [], []
    for query in queries:
        started = time.perf_counter()
        _, ids = index.search(query[None], 10)
        times.append(time.perf_counter() - started)
        found.append(ids[0])
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(truth, found, strict=True)])
    return float(np.median(times) * 1000), float(recall)


def build(base: np.ndarray, code: Any, m: int, ef_construction: int) -> tuple[Any, float]:
    index: Any = faiss.IndexHNSWSQ(base.shape[1], code, m, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = ef_construction
    faiss.omp_set_num_threads(2)
    started = time.perf_counter()
    index.train(base[:50_000])
    index.add(base)
    return index, time.perf_counter() - started


def sweep_index(folder: Path, efs: list[int], part: str) -> None:
    """efSearch on a built index, through the call dense search makes, against exact."""
    import index_recall
    import scale

    from kbsearch.embed import load_encoder
    from kbsearch.models import resolve_model
    from kbsearch.store import Store
    from kbsearch.vector_index import IndexParams

    texts = index_recall.fit_texts() if part == "fit" else [t[:80] for t in corpus.held_out(200)]
    queries = load_encoder(resolve_model(scale.MODEL)).encode(texts)
    store = Store.open(folder)
    exact = index_recall.exact_top10(store, queries)
    store.close()
    print(f"{folder}: {len(texts)} held-apart queries ({part} set); exact scan {exact.ms:.1f} ms per query")
    print(
        f"load {os.getloadavg()[0]:.1f}; the index is asked for {index_recall.FETCH} passages, as dense search asks\n"
    )
    print("| efSearch | p50 | p99 | recall@10 by id / with ties | the 40 re-scored: by id / with ties |")
    print("|---|---|---|---|---|")
    for ef in efs:
        store = Store.open(folder, params=IndexParams(ef_search=ef))
        row = index_recall.measure(store, queries, exact)
        print(
            f"| {ef} | {row['p50']:.3f} ms | {row['p99']:.3f} ms | {row['recall10']:.3f} / {row['recall10_ties']:.3f} "
            f"| {row['rescored10']:.3f} / {row['rescored10_ties']:.3f} |",
            flush=True,
        )
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--index", type=Path, help="sweep efSearch on this built index instead")
    parser.add_argument("--ef", default="64,96,128,192,256")
    parser.add_argument(
        "--queries-set", choices=["fit", "report"], default="fit", help="with --index: the 200 fitted on, or reported"
    )
    args = parser.parse_args()
    if args.index is not None:
        return sweep_index(args.index, [int(e) for e in args.ef.split(",")], args.queries_set)
    base, queries = sample(args.vectors, args.queries)
    exact = faiss.IndexFlatIP(base.shape[1])
    exact.add(base)
    _, truth = exact.search(queries, 10)
    print(f"{len(base):,} vectors, {len(queries)} queries held apart\n")
    print("| code | M | efConstruction | build | efSearch | p50 | recall@10 |\n|---|---|---|---|---|---|---|")
    codes = {"8-bit": faiss.ScalarQuantizer.QT_8bit, "float16": faiss.ScalarQuantizer.QT_fp16}
    settings = [("8-bit", 16, 40), ("8-bit", 16, 80), ("float16", 16, 80)]
    for name, m, ef_construction in settings:
        index, seconds = build(base, codes[name], m, ef_construction)
        for ef_search in (64, 128, 192):
            index.hnsw.efSearch = ef_search
            p50, recall = measure(index, queries, truth)
            print(f"| {name} | {m} | {ef_construction} | {seconds:.0f} s | {ef_search} | {p50:.3f} ms | {recall:.3f} |")


if __name__ == "__main__":
    main()
