"""The vector index behind the store: exact below ann.IVF_MIN vectors, IVF at
and above it. The switch point is lowered here so the IVF path runs on a few
thousand seeded, clustered vectors (faiss needs ~40 per list to train)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kbsearch import ann
from kbsearch.store.vector_cache import load_cache, read_manifest, write_cache
from kbsearch.vector_index import VectorIndex

DIM = 32


@pytest.fixture
def small_ivf(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ann, "IVF_MIN", 3000)
    monkeypatch.setattr(ann, "FLAT_BELOW", 1500)
    monkeypatch.setattr(ann, "EXACT_SUBSET_MAX", 200)
    monkeypatch.setattr(ann, "MIN_PROBES", 8)


def clustered(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, DIM))
    points = centres[rng.integers(0, 40, n)] + 0.35 * rng.standard_normal((n, DIM))
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


def exact_top(vectors: np.ndarray, ids: np.ndarray, query: np.ndarray, k: int) -> np.ndarray:
    return ids[np.argsort(-(vectors @ query), kind="stable")[:k]]


def test_the_index_turns_ivf_at_the_threshold_and_back_when_it_shrinks(small_ivf: None) -> None:
    vectors, ids = clustered(4000), np.arange(4000, dtype=np.int64) * 64 + 1
    index = VectorIndex(DIM)
    index.add(ids[:2000], vectors[:2000])
    assert index.kind == "flat"
    index.add(ids[2000:], vectors[2000:])
    assert (index.kind, index.count) == ("ivf", 4000)
    assert sorted(index.ids().tolist()) == ids.tolist()
    index.remove(ids[:3000])
    assert (index.kind, index.count) == ("flat", 1000)
    assert sorted(index.ids().tolist()) == ids[3000:].tolist()


def test_ivf_recall_at_10_against_exact(small_ivf: None) -> None:
    vectors, ids = clustered(5000), np.arange(5000, dtype=np.int64)
    index = VectorIndex.build(DIM, ids, vectors)
    assert index.kind == "ivf"
    rng = np.random.default_rng(1)
    queries = vectors[:50] + 0.2 * rng.standard_normal((50, DIM)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    _, found = index.search(queries, 10)
    recall = np.mean([len(set(found[i]) & set(exact_top(vectors, ids, q, 10))) / 10 for i, q in enumerate(queries)])
    assert recall >= 0.95


def test_ivf_deletes_and_replaces_ids_in_place(small_ivf: None) -> None:
    vectors, ids = clustered(4000), np.arange(4000, dtype=np.int64)
    index = VectorIndex.build(DIM, ids, vectors)
    index.remove(ids[:10])
    _, found = index.search(vectors[:10], 5)
    assert not set(found.ravel()) & set(ids[:10].tolist())
    # the same id comes back with another vector (an edited record keeps its rowid)
    index.add(ids[:1], vectors[3999:4000])
    scores, found = index.search(vectors[3999:4000], 2)
    assert set(found[0]) == {0, 3999}
    assert scores[0, 0] == pytest.approx(1.0, abs=1e-3)


def test_ivf_filters_inside_the_search_small_and_large_subsets(small_ivf: None) -> None:
    vectors, ids = clustered(4000), np.arange(4000, dtype=np.int64)
    index = VectorIndex.build(DIM, ids, vectors)
    for allowed in (ids[::40], ids[::3]):  # 100 (answered exactly) and 1334 (IVF with a selector)
        _, found = index.search(vectors[:1], 10, allowed)
        assert len(found[0]) == 10 and set(found[0]) <= set(allowed.tolist())
        overlap = set(found[0]) & set(exact_top(vectors[allowed], allowed, vectors[0], 10).tolist())
        assert len(overlap) >= 9


def test_ivf_cache_round_trip_keeps_kind_probes_and_results(small_ivf: None, tmp_path: Path) -> None:
    vectors, ids = clustered(4000), np.arange(4000, dtype=np.int64)
    index = VectorIndex.build(DIM, ids, vectors)
    write_cache(tmp_path, index, model="fake", dim=DIM, generation=3)
    manifest = read_manifest(tmp_path)
    assert manifest is not None and manifest.index_type == "ivf"
    loaded = load_cache(tmp_path, model="fake", dim=DIM, generation=3, passages=4000)
    assert loaded.kind == "ivf"
    query = vectors[10:13]
    assert np.array_equal(loaded.search(query, 10)[1], index.search(query, 10)[1])
    stored = loaded.vectors(ids[:5])
    assert np.abs(stored - vectors[:5]).max() < 1e-3  # float16 storage


def test_building_from_chunks_matches_building_at_once(small_ivf: None) -> None:
    vectors, ids = clustered(4000), np.arange(4000, dtype=np.int64) * 64
    chunks = [(ids[i : i + 700], vectors[i : i + 700]) for i in range(0, 4000, 700)]
    streamed = VectorIndex.from_chunks(DIM, 4000, chunks, lambda size: vectors[:size])
    assert (streamed.kind, streamed.count) == ("ivf", 4000)
    _, found = streamed.search(vectors[:20], 1)
    assert found[:, 0].tolist() == ids[:20].tolist()
    small = VectorIndex.from_chunks(DIM, 700, chunks[:1], lambda size: vectors[:size])
    assert (small.kind, small.count) == ("flat", 700)


def test_a_lost_ivf_cache_is_rebuilt_from_sqlite_as_ivf(small_ivf: None, tmp_path: Path) -> None:
    import datetime as dt

    from fake_encoder import FakeEncoder
    from kbsearch.ingest import ingest_records
    from kbsearch.records import Kind, Record
    from kbsearch.store import MANIFEST_NAME, ChangeSet, Store

    encoder = FakeEncoder()
    records = [
        Record(
            id=f"r{i}",
            kind=Kind.increment,
            title="",
            text=f"note {i} on topic {i % 97} and {i % 13}",
            date=dt.date(2026, 9, 1),
        )
        for i in range(3200)
    ]
    store = Store.open(tmp_path, create=True)
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    assert store.vector_index.kind == "ivf"
    query = encoder.encode(["note 5 on topic 5 and 5"])[0]
    before = store.search_records(query, 5)
    store.close()
    (tmp_path / MANIFEST_NAME).unlink()
    reopened = Store.open(tmp_path, model=encoder.model_id)
    assert reopened.vector_index.kind == "ivf" and reopened.cache_rebuilt()
    assert reopened.search_records(query, 5)[0][0] == before[0][0]


def test_a_single_query_on_any_thread_runs_on_one_openmp_thread() -> None:
    """OpenMP's thread count belongs to each thread: a server's reader or the TUI's
    gateway left at the default would scan with every core, slower on a busy machine."""
    import threading

    import faiss

    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((50, 8)).astype(np.float32)
    index = VectorIndex.build(8, np.arange(50, dtype=np.int64), vectors)
    seen: list[int] = []

    def search() -> None:
        faiss.omp_set_num_threads(2)  # what a new thread starts with on a 2-core machine
        index.search(vectors[:1], 3)
        seen.append(faiss.omp_get_max_threads())

    thread = threading.Thread(target=search)
    thread.start()
    thread.join()
    assert seen == [1]
