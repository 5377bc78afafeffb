"""The batched neighbour search behind ``audit``, against brute force; audit against
a compare-every-pair reference. Seeded random vectors and the fake encoder."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import faiss
import numpy as np
import pytest
from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe import judging, neighbours
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.neighbours import neighbour_pairs
from kbsearch.dedupe.rules import Embedded, compare
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store


def unit_vectors(n: int, dim: int, seed: int, copies: int = 0) -> np.ndarray:
    """Random unit vectors, the last ``copies`` of them close to earlier ones."""
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    for row in range(n - copies, n):
        vectors[row] = vectors[rng.integers(0, n - copies)] + 0.3 * rng.standard_normal(dim)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def brute_force(vectors: np.ndarray, k: int, floor: float) -> set[tuple[int, int]]:
    scores = vectors @ vectors.T
    np.fill_diagonal(scores, -np.inf)
    found = set()
    for row in range(len(vectors)):
        for other in np.argsort(-scores[row])[:k]:
            if scores[row, other] >= floor:
                found.add((min(row, int(other)), max(row, int(other))))
    return found


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_uncapped_search_finds_exactly_the_pairs_above_the_floor(seed: int) -> None:
    vectors = unit_vectors(300, 16, seed, copies=40)
    scores = vectors @ vectors.T
    expected = {(i, j) for i, j in combinations(range(300), 2) if scores[i, j] >= 0.6}
    found = neighbour_pairs(vectors, k=299, floor=0.6)
    assert len(expected) > 40
    assert found.as_set() == expected
    assert np.allclose(found.cosine, scores[found.left, found.right], atol=1e-5)
    assert (found.left < found.right).all()


@pytest.mark.parametrize("k", [1, 3, 10])
def test_capped_search_is_each_rows_k_nearest(k: int) -> None:
    vectors = unit_vectors(400, 24, seed=k, copies=60)
    assert neighbour_pairs(vectors, k=k, floor=0.0).as_set() == brute_force(vectors, k, 0.0)
    assert neighbour_pairs(vectors, k=k, floor=0.5).as_set() == brute_force(vectors, k, 0.5)


def test_batches_and_threads_do_not_change_the_pairs() -> None:
    vectors = unit_vectors(500, 32, seed=5, copies=80)
    whole = neighbour_pairs(vectors, k=5, floor=0.3).as_set()
    assert neighbour_pairs(vectors, k=5, floor=0.3, batch=7, threads=2).as_set() == whole


def test_thread_count_is_restored_for_single_queries() -> None:
    before = faiss.omp_get_max_threads()
    neighbour_pairs(unit_vectors(50, 8, seed=3), k=5, floor=0.0, threads=2)
    assert faiss.omp_get_max_threads() == before


def test_identical_vectors_pair_and_tiny_inputs_do_not() -> None:
    vectors = unit_vectors(20, 8, seed=4)
    vectors[7] = vectors[3]
    found = neighbour_pairs(vectors, k=2, floor=0.99)
    assert found.as_set() == {(3, 7)}
    assert len(neighbour_pairs(vectors[:1], k=5, floor=0.0)) == 0
    assert len(neighbour_pairs(vectors, k=0, floor=0.0)) == 0


# -- audit ---------------------------------------------------------------------------

ROWS = [
    ("a1", "jay", "2026-09-01", "KV cache offloading to host memory", "zero-copy offload of the KV cache to CPU RAM"),
    ("a2", "tom", "2026-09-02", "KV cache offloading to host memory", "zero copy offload of KV cache to CPU memory"),
    ("a3", "spark", "2026-09-03", "KV cache offloading", "zero-copy offload of the KV cache to CPU RAM, again"),
    ("b1", "jay", "2026-09-01", "TGI maintenance mode", "TGI only takes bug fixes now"),
    ("b2", "tom", "2026-09-04", "TGI maintenance mode", "TGI only takes bug fixes now"),
    ("c1", "tom", "2026-09-05", "Speculative decoding with draft heads", "Medusa heads predict four tokens"),
    ("d1", "jay", "2026-09-06", "频域 KV cache 压缩", "TriAttention 把 KV cache 变换到三角函数基底上"),
    ("d2", "spark", "2026-09-07", "频域 KV cache 压缩", "TriAttention 把 KV cache 变换到频率基底"),
]


@pytest.fixture
def store(tmp_path: Path, encoder: FakeEncoder) -> Store:
    store = Store.open(tmp_path / "idx", create=True)
    records = [
        Record(id=i, kind=Kind.increment, instance=who, date=day, title=title, text=text)
        for i, who, day, title, text in ROWS
    ]
    # One file per record: records of one file are never linked.
    files = {r.id: f"/src/{r.id}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=lambda: encoder)
    return store


def test_whole_vectors_are_the_whole_record_passage(store: Store) -> None:
    records = store.by_rowids(r[0] for r in store.db.execute("SELECT rowid FROM records"))
    wholes = store.whole_vectors(records)
    passages = store.passage_vectors(list(records))
    for rowid, record in records.items():
        full = Embedded(record, passages[rowid])
        assert np.array_equal(Embedded.whole_only(record, wholes[rowid]).whole, full.whole)


def test_audit_clusters_match_comparing_every_pair(store: Store) -> None:
    config = fake_config()
    result = audit(store, "fake", config)
    clusters = {frozenset([c.first_seen.id, *(m.id for m in c.repeats)]) for c in result.clusters}
    assert clusters == _reference_clusters(store, config)
    assert frozenset({"b1", "b2"}) in clusters  # identical text


def _reference_clusters(store: Store, config: DedupeConfig) -> set[frozenset[str]]:
    """Union of every pair ``compare`` calls the same item: no neighbour search at all."""
    records = store.by_rowids(r[0] for r in store.db.execute("SELECT rowid FROM records"))
    passages = store.passage_vectors(list(records))
    items = [Embedded(records[r], passages[r]) for r in sorted(records)]
    groups = {item.record.id: {item.record.id} for item in items}
    for a, b in combinations(items, 2):
        if compare(a, b, config, Neighbourhood(), lambda name: 50).same_item:
            merged = groups[a.record.id] | groups[b.record.id]
            for member in merged:
                groups[member] = merged
    return {frozenset(g) for g in groups.values() if len(g) > 1}


def test_records_about_one_id_cluster_once_two_files_have_it(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    texts = ["alpha beta gamma", "delta epsilon zeta", "eta theta iota", "kappa lambda mu"]
    records = [
        Record(id=f"r{i}", kind=Kind.increment, title=f"item {i}", text=text, arxiv_ids=["2607.17715"])
        for i, text in enumerate(texts)
    ]
    files = {"r0": "/src/f.md", "r1": "/src/f.md", "r2": "/src/g.md", "r3": "/src/h.md"}
    ingest_records(store, ChangeSet(upserts=records[:2], files=files), model="fake", load_encoder=lambda: encoder)
    assert audit(store, "fake", fake_config()).clusters == []  # one file's records are distinct by construction
    ingest_records(store, ChangeSet(upserts=records[2:], files=files), model="fake", load_encoder=lambda: encoder)
    [cluster] = audit(store, "fake", fake_config()).clusters
    assert {cluster.first_seen.id, *(m.id for m in cluster.repeats)} == {"r0", "r1", "r2", "r3"}


@pytest.mark.parametrize("floor", [0.5, 0.6, 0.8])
def test_the_upper_triangle_path_equals_the_nearest_neighbour_search(
    floor: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    vectors = unit_vectors(500, 8, seed=11)
    sparse = neighbour_pairs(vectors, k=4, floor=floor, batch=64)  # floor ≥ SPARSE_FLOOR
    monkeypatch.setattr(neighbours, "SPARSE_FLOOR", 2.0)  # force the k-nearest search
    dense = neighbour_pairs(vectors, k=4, floor=floor, batch=64)
    assert sparse.as_set() == dense.as_set() == brute_force(vectors, 4, floor)
    assert len(sparse) > 0


def test_lines_of_one_bulk_file_that_name_their_own_documents_are_compared(
    tmp_path: Path, encoder: FakeEncoder
) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    text = "TGI only takes bug fixes now"
    records = [
        Record(id="x1", kind=Kind.increment, title="TGI maintenance", text=text, source="digest/jay/09-01"),
        Record(id="x2", kind=Kind.increment, title="TGI maintenance", text=text, source="digest/tom/09-04"),
        Record(id="x3", kind=Kind.increment, title="TGI maintenance", text=text, source="digest/tom/09-04"),
    ]
    files = {r.id: "/src/bulk.jsonl" for r in records}  # one file read, three lines
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=lambda: encoder)
    [cluster] = audit(store, "fake", fake_config()).clusters
    assert cluster.first_seen.id == "x1" and {m.id for m in cluster.repeats} <= {"x2", "x3"}
    # x2 and x3 are one document: each is linked to x1, never to each other directly.
    assert audit(store, "fake", fake_config()).clusters[0].size == 3


def test_audit_reads_records_a_chunk_at_a_time_and_its_result_does_not_depend_on_the_chunk(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A million records do not fit at once (more than 22 GB with their pairs):
    # audit reads them in chunks, judges a few pairs at a time from a small
    # cache of built records, and must find exactly what one big chunk finds.
    whole = audit(store, "fake", fake_config())
    asked: list[int] = []
    real = Store.by_rowids

    def spy(self: Store, rowids):  # type: ignore[no-untyped-def]
        rowids = list(rowids)
        asked.append(len(rowids))
        return real(self, rowids)

    monkeypatch.setattr(Store, "by_rowids", spy)
    monkeypatch.setattr(judging, "PAIRS_PER_CHUNK", 2)
    monkeypatch.setattr(judging, "CACHE_RECORDS", 2)
    chunked = audit(store, "fake", fake_config(), chunk=3)
    assert whole.clusters and chunked == whole
    assert asked[:3] == [3, 3, 2]  # the roster: 8 records read three at a time
