"""One conformance suite for every vector backend: flat, HNSW and Milvus (Lite).

Each test runs once per backend, first on the backend alone with seeded
random vectors, then through the store, where SQLite is the source of truth
and the backend a derived cache. Milvus Lite runs in this process; pymilvus
is imported at the top, so a machine without the ``milvus`` extra fails
this file loudly instead of skipping it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pymilvus  # noqa: F401 - the extra must be installed: `make setup` installs it
import pytest

from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records, reindex_store
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, SearchFilter, Store, remote_vectors, writer
from kbsearch.vector_index import IndexParams
from kbsearch.vector_index.base import VectorBackend
from kbsearch.vector_index.choice import parse_vector_store
from kbsearch.vector_index.flat import FlatBackend
from kbsearch.vector_index.hnsw import HnswBackend
from kbsearch.vector_index.milvus import MilvusBackend, connect
from kbsearch.vector_index.predicate import PointFields, Predicate

DIM = 32
SMALL = IndexParams(
    approximate_from=1_000,
    exact_below=400,
    hnsw_m=8,
    ef_construction=40,
    ef_search=64,
    exact_subset_max=100,
    train_size=1_000,
    background_compaction=False,
    code_bits=8,
)
EXACT = replace(SMALL, approximate_from=100_000, exact_below=50_000)
"""Store-level params that keep a local index flat: the HNSW case uses SMALL and enough records."""
BACKENDS = ("flat", "hnsw", "milvus")
KINDS = ("increment", "paper_card", "doc_section")


def clustered(n: int, seed: int = 0) -> np.ndarray:
    """Unit vectors around 40 centres: they have neighbours, as text does."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, DIM))
    points = centres[rng.integers(0, 40, n)] + 0.35 * rng.standard_normal((n, DIM))
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


def fields_for(n: int) -> list[PointFields]:
    return [
        PointFields.of(KINDS[i % 3], f"inst{i % 4}", None, None if i % 5 == 0 else f"2026-09-{i % 28 + 1:02d}")
        for i in range(n)
    ]


def exact_top(vectors: np.ndarray, ids: np.ndarray, query: np.ndarray, k: int) -> np.ndarray:
    return ids[np.argsort(-(vectors @ query), kind="stable")[:k]]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorBackend]:
    if request.param == "milvus":
        uri = str(tmp_path / "vectors.db")
        made = MilvusBackend(DIM, SMALL, client=connect(uri, None), collection="conformance", uri=uri)
        yield made
        made.close()
        return
    yield (FlatBackend if request.param == "flat" else HnswBackend)(DIM, SMALL)


def settle(backend: VectorBackend) -> None:
    if isinstance(backend, MilvusBackend):
        backend.settle()


def search(
    backend: VectorBackend,
    queries: np.ndarray,
    k: int,
    allowed: np.ndarray | None = None,
    where: Predicate | None = None,
) -> np.ndarray:
    return backend.search(queries, k, allowed, where)[1]


# -- the backend alone, on seeded random vectors -------------------------------------------


def test_add_and_search_finds_each_vector_first(backend: VectorBackend) -> None:
    vectors, ids = clustered(1500), np.arange(1500, dtype=np.int64) * 64 + 1
    backend.add(ids, vectors, fields_for(1500))
    settle(backend)
    assert backend.count == 1500 and sorted(backend.ids().tolist()) == ids.tolist()
    assert search(backend, vectors[:20], 1)[:, 0].tolist() == ids[:20].tolist()


def test_the_same_top_k_as_exact_search_on_a_fixed_seed(backend: VectorBackend) -> None:
    vectors, ids = clustered(3000, seed=7), np.arange(3000, dtype=np.int64)
    backend.add(ids, vectors, fields_for(3000))
    settle(backend)
    rng = np.random.default_rng(8)  # queries near stored vectors, not equal to them
    queries = vectors[:60] + 0.2 * rng.standard_normal((60, DIM)).astype(np.float32)
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    found = search(backend, queries, 10)
    recall = np.mean([len(set(found[i]) & set(exact_top(vectors, ids, q, 10))) / 10 for i, q in enumerate(queries)])
    assert recall >= 0.95


def test_a_filter_keeps_only_what_it_allows_inside_the_search(backend: VectorBackend) -> None:
    vectors, ids, fields = clustered(2000), np.arange(2000, dtype=np.int64), fields_for(2000)
    backend.add(ids, vectors, fields)
    settle(backend)
    where = Predicate(kinds=("paper_card",), instance="inst1", not_after="2026-09-20")
    kept = np.array([i for i in ids.tolist() if where.matches(fields[i])], dtype=np.int64)
    assert 0 < len(kept) < 2000
    if backend.takes_predicates:
        found = search(backend, vectors[:3], 10, where=where)
    else:
        found = search(backend, vectors[:3], 10, allowed=kept)
    for row, query in zip(found, vectors[:3], strict=True):
        assert set(row.tolist()) <= set(kept.tolist())
        assert len(set(row.tolist()) & set(exact_top(vectors[kept], kept, query, 10).tolist())) >= 9


def test_removed_ids_are_never_found_and_come_back_when_added_again(backend: VectorBackend) -> None:
    vectors, ids = clustered(1500), np.arange(1500, dtype=np.int64)
    backend.add(ids, vectors, fields_for(1500))
    backend.remove(ids[:10])
    settle(backend)
    assert backend.count == 1490
    assert not set(search(backend, vectors[:10], 5).ravel().tolist()) & set(range(10))
    # An edited record keeps its rowid: the same id comes back with another vector.
    backend.add(ids[:1], vectors[1499:1500], fields_for(1))
    settle(backend)
    assert set(search(backend, vectors[1499:1500], 2)[0].tolist()) == {0, 1499}
    assert backend.count == 1491


def test_deleted_vectors_stay_out_of_filtered_searches_too(backend: VectorBackend) -> None:
    vectors, ids, fields = clustered(1500), np.arange(1500, dtype=np.int64), fields_for(1500)
    backend.add(ids, vectors, fields)
    dead = ids[::2][:300]
    backend.remove(dead)
    settle(backend)
    live = np.setdiff1d(ids, dead)
    if backend.takes_predicates:
        found = search(backend, vectors[dead[:20]], 10, where=Predicate(kinds=KINDS))
    else:
        found = search(backend, vectors[dead[:20]], 10, allowed=ids)  # the dead ids listed as allowed
    assert not set(found.ravel().tolist()) & set(dead.tolist())
    assert backend.count == len(live) and sorted(backend.ids().tolist()) == live.tolist()


# -- through the store: SQLite the truth, the backend derived from it ---------------------


def note(i: int, text: str | None = None, kind: Kind = Kind.increment) -> Record:
    return Record(
        id=f"r{i}",
        kind=kind,
        text=text or f"note {i} on topic {i % 97} and {i % 13}",
        date=dt.date(2026, 9, 1 + i % 28),
        topic="KV" if i % 3 == 0 else None,
    )


def open_store(root: Path, kind: str) -> Store:
    store = Store.open(root, create=True, params=SMALL if kind == "hnsw" else EXACT)
    if kind == "milvus":
        store.require_vectors(parse_vector_store(f"milvus:{root / 'vectors.db'}", root))
    return store


def reopen(root: Path, kind: str) -> Store:
    return Store.open(root, model="fake", params=SMALL if kind == "hnsw" else EXACT)


@pytest.fixture(params=BACKENDS)
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def filled(kind: str, tmp_path: Path) -> Iterator[Store]:
    """1,200 records: enough for the HNSW case's graph (SMALL turns approximate at 1,000)."""
    store = open_store(tmp_path, kind)
    ingest_records(store, ChangeSet(upserts=[note(i) for i in range(1200)]), model="fake", load_encoder=FakeEncoder)
    assert store.vector_index.kind == kind
    yield store
    store.close()


def rowid(store: Store, record_id: str) -> int:
    return store.rowids_of([record_id])[record_id]


def test_the_store_finds_a_record_by_its_text_and_scores_it_exactly(filled: Store) -> None:
    query = FakeEncoder().encode(["note 5 on topic 5 and 5"])[0]
    hits = filled.search_records(query, 5)
    assert hits[0][0] == rowid(filled, "r5") and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    exact = sorted(filled.score_records([h[0] for h in hits], query), key=lambda h: -h[1])
    assert [h[1] for h in hits] == pytest.approx([h[1] for h in exact], abs=1e-5)


def test_the_store_filters_by_kind_topic_and_date_inside_the_search(filled: Store) -> None:
    encoder = FakeEncoder()
    cards = [note(i, text=f"a paper card on topic {i % 97}", kind=Kind.paper_card) for i in range(2000, 2030)]
    ingest_records(filled, ChangeSet(upserts=cards), model="fake", load_encoder=lambda: encoder)
    query = encoder.encode(["note 5 on topic 5 and 5"])[0]
    flt = SearchFilter(kinds=[Kind.paper_card], topic="kv", since=dt.date(2026, 9, 10))
    hits = filled.search_records(query, 5, flt)
    allowed = set(filled.filter_rowids(flt) or [])
    assert len(hits) == 5 and {h[0] for h in hits} <= allowed
    # A section cannot be said in scalar fields: allowed ids, even for Milvus.
    assert filled.search_records(query, 3, SearchFilter(section="nothing like this")) == []
    # The exclusions a check adds stay a post-filter.
    excluded = filled.search_records(query, 3, SearchFilter(exclude_ids=["r5"]))
    assert rowid(filled, "r5") not in {h[0] for h in excluded} and len(excluded) == 3


def test_a_new_topic_or_date_with_the_same_text_is_filtered_on_at_once(filled: Store) -> None:
    """Its vectors stay (the text is unchanged), but a remote engine filters on its fields."""
    moved = note(10).model_copy(update={"topic": "moved", "date": dt.date(2027, 1, 5)})
    ingest_records(filled, ChangeSet(upserts=[moved]), model="fake", load_encoder=FakeEncoder)
    query = FakeEncoder().encode([moved.text])[0]
    hits = filled.search_records(query, 3, SearchFilter(topic="MOVED", since=dt.date(2027, 1, 1)))
    assert [h[0] for h in hits] == [rowid(filled, "r10")]
    assert rowid(filled, "r10") not in {h[0] for h in filled.search_records(query, 3, SearchFilter(topic="kv"))}


def test_an_edit_and_a_removal_reach_the_backend(filled: Store, kind: str, tmp_path: Path) -> None:
    encoder = FakeEncoder()
    edited = note(5, text="an edited note about speculative decoding")
    ingest_records(filled, ChangeSet(upserts=[edited], deletes=["r7"]), model="fake", load_encoder=lambda: encoder)
    old = encoder.encode(["note 5 on topic 5 and 5"])[0]
    assert all(hit[0] != rowid(filled, "r5") or hit[1] < 0.9 for hit in filled.search_records(old, 5))
    new = filled.search_records(encoder.encode([edited.text])[0], 1)
    assert new[0][0] == rowid(filled, "r5") and new[0][1] == pytest.approx(1.0, abs=1e-5)
    held = set(filled.vector_index.ids().tolist())
    assert held == set(filled.passage_vector_ids().tolist())  # r7's vectors gone, r5's replaced
    if kind == "hnsw":
        assert filled.vector_index.tombstones >= 1  # HNSW keeps a deleted vector as a tombstone


def test_a_crash_between_commit_and_backend_write_is_caught_up(
    filled: Store, kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The records commit in SQLite; the process dies before the backend hears of them."""
    encoder = FakeEncoder()

    def die(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("killed after the commit")

    monkeypatch.setattr(writer, "_refresh_index", die)
    monkeypatch.setattr(remote_vectors.RemoteVectors, "after_write", die)
    late = [note(i, text=f"written just before the crash {i}") for i in range(5000, 5040)]
    with pytest.raises(KeyboardInterrupt):
        ingest_records(filled, ChangeSet(upserts=late, deletes=["r9"]), model="fake", load_encoder=lambda: encoder)
    monkeypatch.undo()
    filled.close()
    # The next writer replays the difference: its own write and the lost one.
    store = reopen(tmp_path, kind)
    ingest_records(store, ChangeSet(upserts=[note(6000)]), model="fake", load_encoder=lambda: encoder)
    found = store.search_records(encoder.encode(["written just before the crash 5003"])[0], 1)
    assert found[0][0] == rowid(store, "r5003") and found[0][1] == pytest.approx(1.0, abs=1e-5)
    assert set(store.vector_index.ids().tolist()) == set(store.passage_vector_ids().tolist())
    manifest = store.read_manifest()
    assert manifest is not None and manifest.generation == store.generation
    store.close()


def test_a_reader_opening_after_a_crash_catches_up_too(
    filled: Store, kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoder = FakeEncoder()
    monkeypatch.setattr(writer, "_refresh_index", lambda *a, **k: None)
    monkeypatch.setattr(remote_vectors.RemoteVectors, "after_write", lambda *a, **k: None)
    ingest_records(
        filled, ChangeSet(upserts=[note(7000, text="the lost write")]), model="fake", load_encoder=lambda: encoder
    )
    monkeypatch.undo()
    filled.close()
    store = reopen(tmp_path, kind)
    found = store.search_records(encoder.encode(["the lost write"])[0], 1)
    assert found[0][0] == rowid(store, "r7000")
    assert set(store.vector_index.ids().tolist()) == set(store.passage_vector_ids().tolist())
    store.close()


def test_catching_up_sends_only_the_difference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Milvus alone: the local caches are rebuilt from SQLite whole, a collection is caught up."""
    store = open_store(tmp_path, "milvus")
    ingest_records(store, ChangeSet(upserts=[note(i) for i in range(300)]), model="fake", load_encoder=FakeEncoder)
    remote = store.cache.remote
    assert remote is not None
    monkeypatch.setattr(remote_vectors.RemoteVectors, "after_write", lambda *a, **k: None)
    new, edited = note(8000), note(3, text="edited three, at some length, with a second sentence. And a third one.")
    ingest_records(store, ChangeSet(upserts=[new, edited], deletes=["r4"]), model="fake", load_encoder=FakeEncoder)
    monkeypatch.undo()
    shrunk = max(0, len(note(3).passages()) - len(edited.passages()))
    expected = (len(new.passages()) + len(edited.passages()), len(note(4).passages()) + shrunk)
    assert remote.catch_up("fake", FakeEncoder().dim) == expected
    assert remote.catch_up("fake", FakeEncoder().dim) == (0, 0)
    store.close()


def test_a_reindex_rebuilds_the_backend_from_sqlite(filled: Store, kind: str) -> None:
    encoder = FakeEncoder("fake2", dim=48)
    reindex_store(filled, model="fake2", load_encoder=lambda: encoder)
    query = encoder.encode(["note 5 on topic 5 and 5"])[0]
    hits = filled.search_records(query, 3)
    assert hits[0][0] == rowid(filled, "r5") and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert filled.vector_index.kind == kind and filled.vector_index.count == filled.passage_count()
    manifest = filled.read_manifest()
    assert manifest is not None and (manifest.model, manifest.dim) == ("fake2", 48)
    if kind == "milvus":
        assert manifest.collection is not None and manifest.collection.endswith("_fake2")
