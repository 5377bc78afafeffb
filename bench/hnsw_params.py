"""How the HNSW index's numbers were chosen: code size, M, efConstruction, then efSearch.

    python bench/hnsw_params.py --sample-of DIR [--vectors 300000] [--settings 8/16/80,6/16/80,6/24/120]
    python bench/hnsw_params.py --index DIR [--ef 64,96,128,192] [--queries-set fit|report]

With ``--sample-of``: ``--vectors`` passage vectors of a built index folder
(the 1M one of ``bench/scale_million.py``), picked with a fixed seed, are
indexed by raw faiss with each setting (bits/M/efConstruction; the
quantizer trained on the first 100k, 2 threads), and searched one query at
a time with the 200 fitting queries (``index_recall.fit_texts``, never the
reported ones). Recall@10 with ties (``bench/index_recall.py``) of the
index's own top 10 and of its best 100 re-scored exactly, against an exact
scan of the same sample. A stand-in for the full set when choosing M and
the code size: a build of 1.44M vectors takes half an hour here.

With ``--index``: kbsearch's own index of a built index folder, searched
with each ``efSearch`` through ``IndexParams`` as dense search calls it,
against an exact scan of the float32 vectors in SQLite
(``bench/index_recall.py``). ``--queries-set fit`` (the default) uses the
200 held-apart texts the defaults are fitted on; ``report`` the 200 that
``bench/scale.py`` reports on.
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

CODES = {"8": faiss.ScalarQuantizer.QT_8bit, "6": faiss.ScalarQuantizer.QT_6bit, "4": faiss.ScalarQuantizer.QT_4bit}


def sample_of(folder: Path, count: int) -> np.ndarray:
    """``count`` passage vectors of the index at ``folder``, in vector id order, picked with seed 1."""
    from kbsearch.store import Store

    store = Store.open(folder)
    total = int(store.db.execute("SELECT count(*) FROM passages").fetchone()[0])
    picked = np.sort(np.random.default_rng(1).choice(total, min(count, total), replace=False))
    out, seen = [], 0
    for _, vectors in store.cache._vector_chunks(store.model, store.dim):
        mine = picked[(picked >= seen) & (picked < seen + len(vectors))] - seen
        out.append(vectors[mine])
        seen += len(vectors)
    store.close()
    return np.ascontiguousarray(np.concatenate(out))


def sweep_settings(base: np.ndarray, queries: np.ndarray, settings: list[str]) -> None:
    scores = queries @ base.T
    tenth = np.sort(scores, axis=1)[:, -10]
    print(f"{len(base):,} vectors, {len(queries)} fitting queries; load {os.getloadavg()[0]:.1f}\n")
    print("| codes | M | efConstruction | build | efSearch | p50 | recall@10 with ties | its best 100 re-scored |")
    print("|---|---|---|---|---|---|---|---|")
    for setting in settings:
        bits, m, ef_construction = setting.split("/")
        index: Any = faiss.IndexHNSWSQ(base.shape[1], CODES[bits], int(m), faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = int(ef_construction)
        faiss.omp_set_num_threads(2)
        started = time.perf_counter()
        index.train(base[:100_000])
        index.add(base)
        built = time.perf_counter() - started
        faiss.omp_set_num_threads(1)
        for ef in (128, 192, 256):
            params = faiss.SearchParametersHNSW(efSearch=ef)  # type: ignore[attr-defined]
            times, own, rescored = [], [], []
            for i, query in enumerate(queries):
                started = time.perf_counter()
                _, ids = index.search(query[None], 100, params=params)
                times.append(time.perf_counter() - started)
                found = ids[0][ids[0] >= 0]
                own.append(float(np.sum(scores[i, found[:10]] >= tenth[i] - 1e-5)) / 10)
                best = found[np.argsort(-scores[i, found])[:10]]
                rescored.append(float(np.sum(scores[i, best] >= tenth[i] - 1e-5)) / 10)
            print(
                f"| {bits}-bit | {m} | {ef_construction} | {built:.0f} s | {ef} | {np.median(times) * 1000:.3f} ms "
                f"| {np.mean(own):.3f} | {np.mean(rescored):.3f} |",
                flush=True,
            )


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
    parser.add_argument("--sample-of", type=Path, help="choose the settings on a sample of this index's vectors")
    parser.add_argument("--vectors", type=int, default=300_000)
    parser.add_argument("--settings", default="8/16/80,6/16/80,6/24/120", help="bits/M/efConstruction, comma-separated")
    parser.add_argument("--index", type=Path, help="sweep efSearch on this built index instead")
    parser.add_argument("--ef", default="64,96,128,192")
    parser.add_argument(
        "--queries-set", choices=["fit", "report"], default="fit", help="with --index: the 200 fitted on, or reported"
    )
    args = parser.parse_args()
    if args.index is not None:
        return sweep_index(args.index, [int(e) for e in args.ef.split(",")], args.queries_set)
    if args.sample_of is None:
        parser.error("give --sample-of DIR or --index DIR")
    import index_recall
    import scale

    from kbsearch.embed import load_encoder
    from kbsearch.models import resolve_model

    queries = load_encoder(resolve_model(scale.MODEL)).encode(index_recall.fit_texts())
    sweep_settings(
        sample_of(args.sample_of, args.vectors), np.asarray(queries, dtype=np.float32), args.settings.split(",")
    )


if __name__ == "__main__":
    main()
