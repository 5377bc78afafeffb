"""The vector index: every backend on the same seeded vectors, then the facade
that switches between them, the cache files and compaction. Small
``IndexParams`` make the approximate path run on a few thousand vectors."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store
from kbsearch.store.compaction import compact
from kbsearch.store.manifest import MANIFEST_NAME, read_manifest
from kbsearch.store.vector_cache import CacheProblem, load_cache, write_cache
from kbsearch.vector_index import IndexParams, VectorIndex
from kbsearch.vector_index.base import VectorBackend
from kbsearch.vector_index.facade import BACKENDS
from kbsearch.vector_index.hnsw import HnswBackend

DIM = 32
SMALL = IndexParams(
    approximate_from=1_000,
    exact_below=400,
    hnsw_m=8,
    ef_construction=40,
    ef_search=64,
    exact_subset_max=100,
    train_size=1_000,
    background_compaction=False,  # the tests compact themselves
    # 8-bit: on these 32-d vectors a 6-bit step is coarse next to their
    # spread, and these tests are about the graph, tombstones and files. The
    # 6-bit default (fitted on 512-d text vectors) has its own tests below.
    code_bits=8,
)


def clustered(n: int, seed: int = 0) -> np.ndarray:
    """Unit vectors around 40 centres: they have neighbours, as text does."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, DIM))
    points = centres[rng.integers(0, 40, n)] + 0.35 * rng.standard_normal((n, DIM))
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


def noisy(vectors: np.ndarray, seed: int = 1) -> np.ndarray:
    """Queries near stored vectors but not equal to them."""
    rng = np.random.default_rng(seed)
    out = vectors + 0.2 * rng.standard_normal(vectors.shape).astype(np.float32)
    return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


def exact_top(vectors: np.ndarray, ids: np.ndarray, query: np.ndarray, k: int) -> np.ndarray:
    return ids[np.argsort(-(vectors @ query), kind="stable")[:k]]


def recall(found: np.ndarray, vectors: np.ndarray, ids: np.ndarray, queries: np.ndarray) -> float:
    return float(
        np.mean([len(set(found[i]) & set(exact_top(vectors, ids, q, 10))) / 10 for i, q in enumerate(queries)])
    )


@pytest.fixture(params=BACKENDS, ids=[b.kind for b in BACKENDS])
def backend(request: pytest.FixtureRequest) -> VectorBackend:
    made: VectorBackend = request.param(DIM, SMALL)
    return made


# -- every backend --------------------------------------------------------------------


def test_a_backend_finds_stored_vectors_and_their_neighbours(backend: VectorBackend) -> None:
    vectors, ids = clustered(3000), np.arange(3000, dtype=np.int64) * 64 + 1
    backend.add(ids, vectors)
    assert backend.count == 3000 and sorted(backend.ids().tolist()) == ids.tolist()
    _, found = backend.search(vectors[:20], 1, None)
    assert found[:, 0].tolist() == ids[:20].tolist()
    queries = noisy(vectors[:60])
    assert recall(backend.search(queries, 10, None)[1], vectors, ids, queries) >= 0.95


def test_a_backend_forgets_removed_ids_and_takes_them_back(backend: VectorBackend) -> None:
    vectors, ids = clustered(2000), np.arange(2000, dtype=np.int64)
    backend.add(ids, vectors)
    backend.remove(ids[:10])
    assert backend.count == 1990
    _, found = backend.search(vectors[:10], 5, None)
    assert not set(found.ravel().tolist()) & set(range(10))
    # An edited record keeps its rowid: the same id comes back with another vector.
    backend.add(ids[:1], vectors[1999:2000])
    scores, found = backend.search(vectors[1999:2000], 2, None)
    assert set(found[0].tolist()) == {0, 1999}
    assert scores[0, 0] == pytest.approx(1.0, abs=1e-2)
    assert backend.vectors(ids[:1]) @ vectors[1999] == pytest.approx(1.0, abs=1e-2)


def test_a_filter_works_inside_the_search_for_small_and_large_subsets(backend: VectorBackend) -> None:
    vectors, ids = clustered(3000), np.arange(3000, dtype=np.int64)
    backend.add(ids, vectors)
    backend.remove(ids[1::2][:500])  # tombstones must not come back through a filter
    live = np.setdiff1d(ids, ids[1::2][:500])
    for allowed in (live[::40], live[::3]):  # few (scored one by one) and many (selector in the search)
        _, found = backend.search(vectors[:1], 10, allowed)
        assert len(found[0]) == 10 and set(found[0].tolist()) <= set(allowed.tolist())
        overlap = set(found[0].tolist()) & set(exact_top(vectors[allowed], allowed, vectors[0], 10).tolist())
        assert len(overlap) >= 9


def test_a_backend_survives_its_file(backend: VectorBackend, tmp_path: Path) -> None:
    vectors, ids = clustered(2000), np.arange(2000, dtype=np.int64)
    backend.add(ids, vectors)
    backend.remove(ids[:100])
    digest = backend.write(tmp_path / "v.faiss")
    assert len(digest) == 64
    loaded = VectorIndex.read(tmp_path / "v.faiss", DIM, SMALL)
    assert (loaded.kind, loaded.count, loaded.tombstones) == (backend.kind, 1900, backend.tombstones)
    queries = noisy(vectors[:30])
    assert np.array_equal(loaded.search(queries, 10)[1], backend.search(queries, 10, None)[1])


# -- the facade ------------------------------------------------------------------------


def test_the_index_turns_approximate_at_its_threshold() -> None:
    vectors, ids = clustered(1500), np.arange(1500, dtype=np.int64) * 64
    index = VectorIndex(DIM, SMALL)
    index.add(ids[:900], vectors[:900])
    assert index.kind == "flat"
    index.add(ids[900:], vectors[900:])
    assert (index.kind, index.count) == ("hnsw", 1500)
    assert sorted(index.ids().tolist()) == ids.tolist()


def test_tombstones_past_their_share_or_a_small_index_ask_for_compaction() -> None:
    vectors, ids = clustered(2000), np.arange(2000, dtype=np.int64)
    index = VectorIndex.build(DIM, ids, vectors, SMALL)
    index.remove(ids[:300])  # 300 of 2000 held: under the 0.2 share
    assert (index.tombstones, index.needs_compaction) == (300, False)
    index.remove(ids[300:500])
    assert index.needs_compaction
    small = VectorIndex.build(DIM, ids[:1200], vectors[:1200], SMALL)
    small.remove(ids[:200])  # under the share, but 1000 live of 1200 held... still above exact_below
    assert not small.needs_compaction
    small.remove(ids[200:850])
    assert small.count < SMALL.exact_below and small.needs_compaction


def test_building_from_chunks_picks_the_backend_by_total() -> None:
    vectors, ids = clustered(2000), np.arange(2000, dtype=np.int64) * 64
    chunks = [(ids[i : i + 700], vectors[i : i + 700]) for i in range(0, 2000, 700)]
    streamed = VectorIndex.from_chunks(DIM, 2000, chunks, lambda size: vectors[:size], SMALL)
    assert (streamed.kind, streamed.count) == ("hnsw", 2000)
    _, found = streamed.search(vectors[:20], 1)
    assert found[:, 0].tolist() == ids[:20].tolist()
    small = VectorIndex.from_chunks(DIM, 700, chunks[:1], lambda size: vectors[:size], SMALL)
    assert (small.kind, small.count) == ("flat", 700)


def test_params_refuse_impossible_values() -> None:
    with pytest.raises(ValueError, match="exact_below"):
        IndexParams(approximate_from=10, exact_below=20)
    with pytest.raises(ValueError, match="compact_share"):
        IndexParams(compact_share=1.5)


# -- the cache files ---------------------------------------------------------------------


def test_the_cache_round_trip_keeps_kind_tombstones_and_results(tmp_path: Path) -> None:
    vectors, ids = clustered(2000), np.arange(2000, dtype=np.int64)
    index = VectorIndex.build(DIM, ids, vectors, SMALL)
    index.remove(ids[:50])
    write_cache(tmp_path, index, model="fake", dim=DIM, generation=3)
    manifest = read_manifest(tmp_path)
    assert manifest is not None and (manifest.index_type, manifest.count) == ("hnsw", 1950)
    loaded = load_cache(tmp_path, model="fake", dim=DIM, generation=3, passages=1950, params=SMALL)
    assert (loaded.kind, loaded.tombstones) == ("hnsw", 50)
    queries = noisy(vectors[:20])
    assert np.array_equal(loaded.search(queries, 10)[1], index.search(queries, 10)[1])


def test_a_cache_of_an_older_format_is_never_read(tmp_path: Path) -> None:
    vectors, ids = clustered(200), np.arange(200, dtype=np.int64)
    write_cache(tmp_path, VectorIndex.build(DIM, ids, vectors, SMALL), model="fake", dim=DIM, generation=1)
    manifest = json.loads((tmp_path / MANIFEST_NAME).read_text())
    del manifest["cache_format"]  # as written before HNSW: flat or IVF
    (tmp_path / MANIFEST_NAME).write_text(json.dumps(manifest))
    with pytest.raises(CacheProblem, match="format 1"):
        load_cache(tmp_path, model="fake", dim=DIM, generation=1, passages=200, params=SMALL)


def test_a_graph_built_with_other_params_is_read_as_built(tmp_path: Path) -> None:
    vectors, ids = clustered(2000), np.arange(2000, dtype=np.int64)
    write_cache(tmp_path, VectorIndex.build(DIM, ids, vectors, SMALL), model="fake", dim=DIM, generation=1)
    for other in (replace(SMALL, hnsw_m=12), replace(SMALL, code_bits=6)):
        loaded = load_cache(tmp_path, model="fake", dim=DIM, generation=1, passages=2000, params=other)
        assert loaded.kind == "hnsw" and loaded.count == 2000
        _, found = loaded.search(vectors[:5], 1)
        assert found[:, 0].tolist() == ids[:5].tolist()


def test_params_refuse_a_code_size_faiss_has_not() -> None:
    with pytest.raises(ValueError, match="code_bits"):
        IndexParams(code_bits=5)


# -- in the store ---------------------------------------------------------------------------


def note(i: int, text: str | None = None) -> Record:
    return Record(
        id=f"r{i}",
        kind=Kind.increment,
        text=text or f"note {i} on topic {i % 97} and {i % 13}",
        date=dt.date(2026, 9, 1),
    )


@pytest.fixture
def hnsw_store(tmp_path: Path) -> Store:
    store = Store.open(tmp_path, create=True, params=SMALL)
    encoder = FakeEncoder()
    ingest_records(store, ChangeSet(upserts=[note(i) for i in range(1200)]), model="fake", load_encoder=lambda: encoder)
    assert store.vector_index.kind == "hnsw"
    return store


def test_search_scores_from_an_approximate_index_are_exact(hnsw_store: Store) -> None:
    query = FakeEncoder().encode(["note 5 on topic 5 and 5"])[0]
    hits = hnsw_store.search_records(query, 5)
    exact = sorted(hnsw_store.score_records([h[0] for h in hits], query), key=lambda h: -h[1])
    assert [h[0] for h in hits] == [h[0] for h in exact]
    # Within float32 rounding of the float32 cosine; the 8-bit codes are off by about 1e-3.
    assert [h[1] for h in hits] == pytest.approx([h[1] for h in exact], abs=1e-5)
    assert hits[0][0] == hnsw_store.db.execute("SELECT rowid FROM records WHERE id = 'r5'").fetchone()[0]


def test_six_bit_codes_find_candidates_and_the_store_ranks_them_exactly(tmp_path: Path) -> None:
    store = Store.open(tmp_path, create=True, params=replace(SMALL, code_bits=6))
    encoder = FakeEncoder()
    ingest_records(store, ChangeSet(upserts=[note(i) for i in range(1200)]), model="fake", load_encoder=lambda: encoder)
    vids, vectors = store.cache.passage_vectors(store.all_rowids(), "fake", encoder.dim)
    coarse = 0.0
    for i in (5, 77, 400, 901):
        query = encoder.encode([f"note on topic {i % 97} and {i % 13}"])[0]
        hits = store.search_records(query, 5)
        exact = sorted(store.score_records(store.all_rowids(), query), key=lambda h: -h[1])[:5]
        assert [h[1] for h in hits] == pytest.approx([h[1] for h in exact], abs=1e-5)
        scores, ids = store.vector_index.search(query[None, :], 1)
        coarse = max(coarse, abs(float(scores[0, 0]) - float(vectors[vids == ids[0, 0]][0] @ query)))
    assert coarse > 1e-3  # what the codes alone would have shown
    store.close()


def test_a_store_whose_graph_has_other_params_reads_it_without_a_rebuild(hnsw_store: Store, tmp_path: Path) -> None:
    query = FakeEncoder().encode(["note 5 on topic 5 and 5"])[0]
    before = hnsw_store.search_records(query, 3)
    hnsw_store.close()
    denser = Store.open(tmp_path, params=replace(SMALL, hnsw_m=12))
    assert denser.search_records(query, 3) == before
    assert denser.cache.rebuilt is None and denser.notes == []
    denser.close()


def test_an_edit_leaves_a_tombstone_and_no_rebuild(hnsw_store: Store) -> None:
    index = hnsw_store.vector_index
    encoder = FakeEncoder()
    edited = note(5, text="an edited note about speculative decoding")
    ingest_records(hnsw_store, ChangeSet(upserts=[edited]), model="fake", load_encoder=lambda: encoder)
    assert hnsw_store.vector_index is index  # grown in place, not rebuilt
    assert index.tombstones == 1 and index.count == 1200
    old = encoder.encode(["note 5 on topic 5 and 5"])[0]
    rowid = hnsw_store.db.execute("SELECT rowid FROM records WHERE id = 'r5'").fetchone()[0]
    assert all(hit[0] != rowid or hit[1] < 0.9 for hit in hnsw_store.search_records(old, 5))
    new = hnsw_store.search_records(encoder.encode([edited.text])[0], 1)
    assert new[0][0] == rowid and new[0][1] == pytest.approx(1.0, abs=1e-5)


def test_compaction_drops_tombstones_and_keeps_the_results(hnsw_store: Store, tmp_path: Path) -> None:
    encoder = FakeEncoder()
    edits = [note(i, text=f"rewritten note {i}") for i in range(400)]  # 400 of 1600 held: past 0.2
    ingest_records(hnsw_store, ChangeSet(upserts=edits), model="fake", load_encoder=lambda: encoder)
    assert hnsw_store.cache.needs_compaction()
    query = encoder.encode(["rewritten note 7"])[0]
    hnsw_store.close()
    assert compact(tmp_path, SMALL)
    reopened = Store.open(tmp_path, params=SMALL)
    assert reopened.vector_index.tombstones == 0 and reopened.cache.rebuilt is None
    after = reopened.search_records(query, 5)
    # The new graph holds every live vector and none of the old ones: the
    # edited record comes first, and the rest are the exact best records.
    exact = sorted(reopened.score_records(reopened.all_rowids(), query), key=lambda h: -h[1])[:5]
    assert after[0][0] == reopened.rowids_of(["r7"])["r7"] and after[0][1] == pytest.approx(1.0)
    assert len({h[0] for h in after} & {h[0] for h in exact}) >= 4
    reopened.close()


def test_compaction_gives_way_to_a_writer_that_committed_meanwhile(
    hnsw_store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoder = FakeEncoder()
    built = Store.build_index

    def write_meanwhile(self: Store) -> VectorIndex:
        index = built(self)
        ingest_records(hnsw_store, ChangeSet(upserts=[note(9999)]), model="fake", load_encoder=lambda: encoder)
        return index

    monkeypatch.setattr(Store, "build_index", write_meanwhile)
    assert not compact(tmp_path, SMALL)
    manifest = read_manifest(tmp_path)
    assert manifest is not None and manifest.generation == hnsw_store.generation  # the writer's cache stands
    hnsw_store.close()


def test_an_approximate_cache_lost_is_rebuilt_from_sqlite(hnsw_store: Store, tmp_path: Path) -> None:
    query = FakeEncoder().encode(["note 5 on topic 5 and 5"])[0]
    before = hnsw_store.search_records(query, 5)
    hnsw_store.close()
    (tmp_path / MANIFEST_NAME).unlink()
    reopened = Store.open(tmp_path, model="fake", params=SMALL)
    assert reopened.vector_index.kind == "hnsw" and reopened.cache.rebuilt
    assert reopened.search_records(query, 5)[0][0] == before[0][0]
    reopened.close()


def test_hnsw_reads_only_its_own_files() -> None:
    flat = VectorIndex.build(DIM, np.arange(10, dtype=np.int64), clustered(10), SMALL)
    assert HnswBackend.from_faiss(flat._backend.faiss_index(), DIM, SMALL) is None


def test_neighbour_pairs_through_an_approximate_index_find_the_exact_ones(hnsw_store: Store) -> None:
    from kbsearch.dedupe.neighbours import RowsOf, index_pairs, neighbour_pairs, unique_pairs

    rowids = [r[0] for r in hnsw_store.db.execute("SELECT rowid FROM records ORDER BY rowid")]
    wholes = hnsw_store.passage_vectors(rowids)
    matrix = np.stack([wholes[r][0] for r in rowids])  # one passage each: the whole text
    exact = neighbour_pairs(matrix, 5, 0.5).as_set()
    # As audit asks: a chunk of rows at a time, each chunk's pairs made unique at the end.
    rows_of, chunks = RowsOf(np.array(rowids, dtype=np.int64)), np.array_split(np.arange(len(rowids)), 3)
    index = hnsw_store.vector_index
    found = unique_pairs([index_pairs(index, matrix[c], c, rows_of, 5, 0.5) for c in chunks], len(rowids)).as_set()
    assert len(exact) > 100
    assert len(found & exact) >= 0.95 * len(exact)
    assert not {(a, b) for a, b in found if a == b}


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


def test_compaction_takes_the_writer_lock_of_writers() -> None:
    from kbsearch.kb.writer_lock import LOCK_NAME
    from kbsearch.store import compaction

    assert compaction.WRITER_LOCK == LOCK_NAME


def test_a_reader_between_a_writers_two_renames_waits_instead_of_rebuilding(
    hnsw_store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kbsearch.store import vector_cache

    hnsw_store.close()
    real = vector_cache.load_cache
    calls: list[int] = []

    def half_renamed(*args: object, **kwargs: object) -> VectorIndex:
        calls.append(1)
        if len(calls) == 1:
            raise CacheProblem("vector file does not match its manifest (corrupt or half written)")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vector_cache, "load_cache", half_renamed)
    monkeypatch.setattr(vector_cache, "RETRY_SECONDS", 0.01)
    reopened = Store.open(tmp_path, params=SMALL)
    assert reopened.vector_index.kind == "hnsw" and len(calls) == 2
    assert reopened.cache.rebuilt is None  # loaded on the second look, not rebuilt
    reopened.close()
