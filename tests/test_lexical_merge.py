"""The writer keeps FTS5's index in few segments (``kbsearch.store.lexical_merge``):
every write adds at least one, and a search looks each term up in all of them."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

import kbsearch.store.lexical_merge as lexical_merge
from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.search import SearchMode, search
from kbsearch.store import ChangeSet, SearchFilter, Store


def record(i: int) -> Record:
    return Record.model_validate(
        {
            "id": f"tom/r{i}",
            "kind": Kind.increment,
            "title": f"note {i}",
            "text": f"频域压缩 KV cache note {i}: serving model {i * 7919 % 1000} tokens",
            "instance": "tom",
            "date": dt.date(2026, 9, 1),
            "source": "/src/tom.md",
            "position": i,
        }
    )


@pytest.fixture
def encoder() -> FakeEncoder:
    return FakeEncoder()


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "idx", create=True)


@pytest.fixture(autouse=True)
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexical_merge, "MERGE_AT_LEAST", 10)


def write(store: Store, encoder: FakeEncoder, numbers: range) -> None:
    changes = ChangeSet(upserts=[record(i) for i in numbers])
    ingest_records(store, changes, model=encoder.model_id, load_encoder=lambda: encoder)


def test_small_writes_add_segments_until_a_tenth_of_the_index_changed(store: Store, encoder: FakeEncoder) -> None:
    write(store, encoder, range(0, 100))  # the first write changes every row: merged
    assert lexical_merge.segments(store.db) == 1
    for start in range(100, 109):  # nine rows in nine writes: below a tenth of 100
        write(store, encoder, range(start, start + 1))
    assert lexical_merge.segments(store.db) > 1
    assert lexical_merge.changed_since_merge(store.db, store.count()) == 9
    write(store, encoder, range(109, 112))  # 12 of 112 records changed since the merge
    assert lexical_merge.segments(store.db) == 1
    assert lexical_merge.changed_since_merge(store.db, store.count()) == 0


def test_deletes_count_as_changes(store: Store, encoder: FakeEncoder) -> None:
    write(store, encoder, range(0, 100))
    store.apply(ChangeSet(deletes=[f"tom/r{i}" for i in range(5)]), model=encoder.model_id)
    assert lexical_merge.changed_since_merge(store.db, store.count()) == 5
    store.apply(ChangeSet(deletes=[f"tom/r{i}" for i in range(5, 15)]), model=encoder.model_id)
    assert lexical_merge.changed_since_merge(store.db, store.count()) == 0
    assert lexical_merge.segments(store.db) == 1


def test_an_index_from_before_the_count_merges_at_its_next_write(store: Store, encoder: FakeEncoder) -> None:
    write(store, encoder, range(0, 50))
    for start in range(50, 53):
        write(store, encoder, range(start, start + 1))
    assert lexical_merge.segments(store.db) > 1
    store.db.execute("DELETE FROM meta WHERE key = ?", (lexical_merge.CHANGED_KEY,))
    write(store, encoder, range(53, 54))
    assert lexical_merge.segments(store.db) == 1


def test_a_merge_changes_no_result(store: Store, encoder: FakeEncoder) -> None:
    write(store, encoder, range(0, 60))
    for start in range(60, 65):
        write(store, encoder, range(start, start + 1))
    queries = ["频域压缩 note 61", "serving model 7 tokens", "note 3", "KV cache"]
    before = {q: search(store, encoder, q, 10, SearchFilter(), SearchMode.hybrid).results for q in queries}
    assert lexical_merge.segments(store.db) > 1
    store.db.execute("BEGIN")
    assert lexical_merge.after_write(store.db, 1_000)
    store.db.execute("COMMIT")
    assert lexical_merge.segments(store.db) == 1
    after = {q: search(store, encoder, q, 10, SearchFilter(), SearchMode.hybrid).results for q in queries}
    assert {q: [(h.id, h.score) for h in hits] for q, hits in before.items()} == {
        q: [(h.id, h.score) for h in hits] for q, hits in after.items()
    }


def test_stats_shows_the_segments_and_how_far_the_next_merge_is(store: Store, encoder: FakeEncoder) -> None:
    from kbsearch.kb.reading import stats
    from kbsearch.render.reports import stats_text

    write(store, encoder, range(0, 100))
    for start in range(100, 103):
        write(store, encoder, range(start, start + 1))
    shown = stats(store, store.root)
    assert shown.fulltext_segments == lexical_merge.segments(store.db) > 1
    assert shown.fulltext_merge_in == 10 + 1 - 3  # a tenth of 103 rows, rounded up, less the three changed
    said = f"full text    in {shown.fulltext_segments} pieces, merged into one by an ingest once about 8 more records"
    line = next(line for line in stats_text(shown).splitlines() if line.startswith("full text"))
    assert line.startswith(said) and "segment" not in line and "rows" not in line  # no FTS5 words


def test_a_long_merge_is_told_and_a_write_that_merges_nothing_is_not(
    store: Store, encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kbsearch.store.writer as writer

    monkeypatch.setattr(writer, "MERGE_NOTE_SECONDS", 0.0)  # every merge here is quick
    write(store, encoder, range(0, 100))  # merges
    assert [n for n in store.notes if "merged the full-text index" in n]
    store.cache.notes.clear()
    write(store, encoder, range(100, 101))  # one row of 100: no merge
    assert not [n for n in store.notes if "full-text" in n]
