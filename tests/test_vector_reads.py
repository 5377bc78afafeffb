"""Reading a few records' vectors from SQLite costs the same in a large index as in a small one.

Search and check score their hits from the float32 vectors kept in SQLite.
A join left to SQLite's planner walked every vector of the model for each
chunk of records, so each search cost grew with the index. The work is
counted in SQLite VM steps (a progress handler), not timed.
"""

from __future__ import annotations

from pathlib import Path

from support.files import write_jsonl

from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records
from kbsearch.kb import KnowledgeBase
from kbsearch.models import resolve_model
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store


def store_of(folder: Path, count: int, encoder: FakeEncoder) -> Store:
    store = Store.open(folder, create=True)
    records = [
        Record(id=f"r{i}", kind=Kind.increment, title=f"Note {i}", text=f"note {i} on caches") for i in range(count)
    ]
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    return store


def steps_to_read(store: Store, rowids: list[int]) -> int:
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    store.db.set_progress_handler(count, 10)
    try:
        ids, vectors = store.cache.passage_vectors(rowids, store.model or "", store.dim or 0)
    finally:
        store.db.set_progress_handler(None, 0)
    assert len(ids) == len(vectors) == 2 * len(rowids)  # the title and the whole text
    return steps[0]


def test_reading_a_few_records_vectors_does_not_walk_the_whole_index(tmp_path: Path, encoder: FakeEncoder) -> None:
    small = store_of(tmp_path / "small", 100, encoder)
    large = store_of(tmp_path / "large", 2_000, encoder)
    try:
        wanted = sorted(small.rowids_of(["r3", "r40", "r77"]).values())
        assert sorted(large.rowids_of(["r3", "r40", "r77"]).values()) == wanted
        assert steps_to_read(large, wanted) < 2 * steps_to_read(small, wanted)
    finally:
        small.close()
        large.close()


def _mapped_bytes(kb: KnowledgeBase) -> int:
    return int(kb.store.db.execute("PRAGMA mmap_size").fetchone()[0])


def test_a_search_reads_through_a_memory_map_and_other_reads_do_not(fake_models: Path, tmp_path: Path) -> None:
    rows = [
        {"id": f"n{i}", "instance": "tom", "date": "2026-09-17", "text": f"note {i} on KV caches"} for i in range(5)
    ]
    with KnowledgeBase(tmp_path / "idx", resolve_model("fake"), create=True, encoder=FakeEncoder()) as kb:
        kb.ingest([write_jsonl(tmp_path / "notes.jsonl", rows)])
        kb.listing()
        assert _mapped_bytes(kb) == 0  # ingest and listing read as SQLite does by default
        found = kb.search("note on KV", 3)
        assert _mapped_bytes(kb) > 0
        assert [h.id for h in kb.search("note on KV", 3).results] == [h.id for h in found.results]
