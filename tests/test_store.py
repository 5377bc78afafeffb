from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import pytest

from fake_encoder import FakeEncoder
from kbsearch.errors import KbError
from kbsearch.ingest import ingest_records, reindex_store
from kbsearch.records import Kind, Record
from kbsearch.search import SearchMode, search
from kbsearch.store import MANIFEST_NAME, VECTORS_NAME, ChangeSet, SearchFilter, Store
from kbsearch.store.database import writable

TOPICS = [
    "KV cache compression in the frequency domain",
    "speculative decoding with suffix trees",
    "zero-copy KV cache offloading to host memory",
    "SGLang 推理引擎 前缀缓存",
    "TGI 进入维护模式",
    "difficulty-aware length control for reasoning",
    "MCP design patterns for agents",
    "vLLM 吞吐 benchmark H100",
    "PD disaggregation 分离式推理",
    "LMCache production KV layer",
]


def make_records(n: int = 10, *, instance: str = "tom") -> list[Record]:
    return [
        Record(
            id=f"{instance}/r{i}",
            kind=Kind.increment if i % 2 else Kind.paper_card,
            title=TOPICS[i % len(TOPICS)],
            text=f"note {i} about {TOPICS[i % len(TOPICS)]}",
            instance=instance,
            date=dt.date(2026, 9, 1 + i % 20),
            source=f"/src/{instance}.md",
            position=i,
            arxiv_ids=[f"2609.{10000 + i}"],
        )
        for i in range(n)
    ]


def fill(store: Store, records: list[Record], encoder: FakeEncoder) -> None:
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)


def run(store: Store, encoder: FakeEncoder, query: str, k: int = 5, **flt: object) -> list[tuple[str, float]]:
    """Dense search: these tests are about the vectors; score is the cosine."""
    response = search(store, encoder, query, k, SearchFilter(**flt), SearchMode.dense)
    return [(h.id, h.score) for h in response.results]


def test_save_reopen_gives_identical_results(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    fill(store, make_records(), encoder)
    queries = ["frequency domain KV compression", "推理引擎", "agents MCP"]
    before = [run(store, encoder, q) for q in queries]
    store.close()
    reopened = Store.open(tmp_path, model="fake")
    assert [run(reopened, encoder, q) for q in queries] == before
    assert reopened.notes == []  # loaded from the cache, not rebuilt
    assert before[0][0][0] == "tom/r0"


def test_identical_text_scores_one_and_vectors_are_unit(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    records = make_records(3)
    fill(store, records, encoder)
    hits = run(store, encoder, records[1].embed_text(), k=3)
    assert hits[0][0] == records[1].id
    assert hits[0][1] == pytest.approx(1.0, abs=1e-4)


def test_unchanged_text_is_never_embedded_again(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    records = make_records()
    fill(store, records, encoder)
    first = encoder.texts_seen
    assert first == sum(len(r.passages()) for r in records)
    moved = [r.model_copy(update={"position": r.position + 100}) for r in records]
    fill(store, moved, encoder)  # metadata changed, text did not
    assert encoder.texts_seen == first
    edited = records[3].model_copy(update={"text": "a new claim: 12.5x compression"})
    fill(store, [edited], encoder)
    assert encoder.texts_seen == first + 1  # only the whole-text passage is new; the title is known
    assert store.count() == 10
    assert run(store, encoder, edited.embed_text(), k=1)[0][0] == edited.id


def test_upsert_replaces_the_vector_of_an_edited_record(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    records = make_records()
    fill(store, records, encoder)
    edited = records[0].model_copy(update={"title": "MCP design patterns for agents", "text": "agents"})
    fill(store, [edited], encoder)
    assert store.vector_index.count == 20
    hits = run(store, encoder, "KV cache compression in the frequency domain", k=10)
    assert next(h for h in hits if h[0] == "tom/r0")[1] < 0.9


def test_delete_removes_record_and_vector(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    fill(store, make_records(), encoder)
    ingest_records(store, ChangeSet(deletes=["tom/r0"]), model="fake", load_encoder=lambda: encoder)
    passages = store.db.execute("SELECT count(*) FROM passages").fetchone()[0]
    assert store.count() == 9 and store.vector_index.count == passages == 18
    reopened = Store.open(tmp_path, model="fake")
    assert "tom/r0" not in [h[0] for h in run(reopened, encoder, TOPICS[0], k=9)]


def test_filtered_search_returns_k_when_k_exist(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    fill(store, make_records(40) + make_records(40, instance="jay"), encoder)
    hits = run(store, encoder, "KV cache", k=7, instance="jay", kinds=[Kind.increment])
    assert len(hits) == 7
    rows = [store.get(h[0]) for h in hits]
    assert all(r is not None and r.instance == "jay" and r.kind is Kind.increment for r in rows)
    dated = run(store, encoder, "KV cache", k=50, since=dt.date(2026, 9, 5), until=dt.date(2026, 9, 6))
    assert dated and all(dt.date(2026, 9, 5) <= store.get(i).date <= dt.date(2026, 9, 6) for i, _ in dated)


def test_arxiv_id_query_pins_its_record_first(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    fill(store, make_records(), encoder)
    response = search(store, encoder, "arXiv:2609.10007v2", 3)
    assert response.results[0].id == "tom/r7"
    assert response.results[0].matched_ids == ["2609.10007"]


def test_model_mismatch_is_refused_and_reindex_fixes_it(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    fill(store, make_records(), encoder)
    store.close()
    with pytest.raises(KbError, match="reindex --model fake2"):
        Store.open(tmp_path, model="fake2")
    other = FakeEncoder("fake2", dim=32)
    store = Store.open(tmp_path)
    reindex_store(store, model="fake2", load_encoder=lambda: other)
    store.close()
    reopened = Store.open(tmp_path, model="fake2")
    assert reopened.dim == 32
    assert run(reopened, other, TOPICS[2], k=1)[0][0] == "tom/r2"


@pytest.mark.parametrize("damage", ["delete", "corrupt", "truncate_manifest"])
def test_damaged_cache_is_rebuilt_from_sqlite(tmp_path: Path, encoder: FakeEncoder, damage: str) -> None:
    store = Store.open(tmp_path, create=True)
    fill(store, make_records(), encoder)
    before = run(store, encoder, "zero-copy offloading")
    store.close()
    if damage == "delete":
        (tmp_path / VECTORS_NAME).unlink()
    elif damage == "corrupt":
        data = bytearray((tmp_path / VECTORS_NAME).read_bytes())
        data[100:200] = b"\xff" * 100
        (tmp_path / VECTORS_NAME).write_bytes(bytes(data))
    else:
        (tmp_path / MANIFEST_NAME).write_text('{"format_ver')
    reopened = Store.open(tmp_path, model="fake")
    assert run(reopened, encoder, "zero-copy offloading") == before
    assert reopened.notes and "rebuilt" in reopened.notes[0]


def test_stale_cache_after_crash_between_commit_and_cache_write(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    fill(store, make_records(5), encoder)
    old_cache = (tmp_path / VECTORS_NAME).read_bytes()
    old_manifest = (tmp_path / MANIFEST_NAME).read_bytes()
    fill(store, make_records(10)[5:], encoder)
    store.close()
    # Simulate a crash right after the SQLite commit: the cache files are the old ones.
    (tmp_path / VECTORS_NAME).write_bytes(old_cache)
    (tmp_path / MANIFEST_NAME).write_bytes(old_manifest)
    reopened = Store.open(tmp_path, model="fake")
    assert reopened.vector_index.count == 20
    assert sorted(reopened.vector_index.ids().tolist()) == sorted(
        r[0] for r in reopened.db.execute("SELECT rowid * 64 + idx FROM passages")
    )


def test_opening_a_missing_index_says_how_to_build_one(tmp_path: Path) -> None:
    with pytest.raises(KbError, match="kbsearch ingest"):
        Store.open(tmp_path / "nowhere")


def test_vectors_are_stored_once_per_text(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    twin = make_records(2)
    copies = [twin[0], twin[0].model_copy(update={"id": "jay/copy", "instance": "jay"})]
    fill(store, copies, encoder)
    assert encoder.texts_seen == 2  # title and whole text, once for both copies
    assert store.db.execute("SELECT count(*) FROM vectors").fetchone()[0] == 2
    query = encoder.encode([copies[0].embed_text()])[0]
    assert [round(s, 4) for _, s, _ in store.score_records([1, 2], query)] == [1.0, 1.0]


def test_a_file_vanishing_during_the_write_check_is_not_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another writer renames its temp file away between our listing and our check.
    (tmp_path / "kb.sqlite").write_bytes(b"")
    listed = [tmp_path / "kb.sqlite", tmp_path / "vectors.faiss.tmp"]
    monkeypatch.setattr(Path, "iterdir", lambda self: iter(listed))
    monkeypatch.setattr(Path, "is_file", lambda self: True)
    assert writable(tmp_path)


def test_an_index_from_schema_4_keeps_its_vectors_in_a_rowid_table(tmp_path: Path, encoder: FakeEncoder) -> None:
    """A 2 KB vector overflowed a WITHOUT ROWID leaf; migration 5 moves every vector, unchanged."""
    store = Store.open(tmp_path, create=True)
    fill(store, make_records(), encoder)
    before = run(store, encoder, "frequency domain KV compression")
    store.close()
    db = sqlite3.connect(tmp_path / "kb.sqlite")
    vectors = sorted(db.execute("SELECT model, content_hash, vector FROM vectors"))
    db.executescript(  # as schema 4 left it
        """
        CREATE TABLE old (model TEXT NOT NULL, content_hash TEXT NOT NULL, vector BLOB NOT NULL,
                          PRIMARY KEY (model, content_hash)) WITHOUT ROWID;
        INSERT INTO old SELECT model, content_hash, vector FROM vectors;
        DROP TABLE vectors;
        ALTER TABLE old RENAME TO vectors;
        PRAGMA user_version = 4;
        """
    )
    db.close()
    migrated = Store.open(tmp_path, model=encoder.model_id)
    schema = migrated.db.execute("SELECT sql FROM sqlite_master WHERE name = 'vectors'").fetchone()[0]
    assert "WITHOUT ROWID" not in schema.upper()
    assert sorted(migrated.db.execute("SELECT model, content_hash, vector FROM vectors")) == vectors
    assert run(migrated, encoder, "frequency domain KV compression") == before
    fill(migrated, make_records(12), encoder)  # a write replaces by (model, content hash), as before
    counts = "SELECT count(*), count(DISTINCT content_hash) FROM vectors"
    held, distinct = migrated.db.execute(counts).fetchone()
    assert held == distinct > len(vectors) and migrated.passages_without_vector(encoder.model_id) == 0
