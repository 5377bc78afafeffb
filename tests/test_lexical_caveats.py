"""An increment's caveat (警示) is searchable (a new user's probe, 6 December):
``search "国内云上暂时租不到"`` found nothing, though it was an increment's
警示 word for word, because the lexical index held the text and claims but
no caveats. The body now ends with the caveats the text lacks, and an index
written before gets them on open (migration 7), nothing else changed."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from pathlib import Path

import pytest

from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.search import SearchMode, search
from kbsearch.store import ChangeSet, SearchFilter, Store, lexical, lexical_rows
from kbsearch.store.lexical_counts import COUNTS_TABLE, TOTAL
from kbsearch.store.migrations import ON_OPEN


def increment(i: int, text: str, caveats: list[str]) -> Record:
    return Record.model_validate(
        {
            "id": f"amy/c{i}",
            "kind": Kind.increment,
            "title": f"Item {i}",
            "text": text,
            "caveats": caveats,
            "instance": "amy",
            "date": dt.date(2026, 11, 2),
            "source": "/src/amy.md",
            "position": i,
        }
    )


ITEMS = [
    increment(0, "远端内存池承接换出的 KV 页。", ["需要新一代内存硬件，公有云上还买不到"]),
    increment(1, "Caveat restated: only tested at batch 1.", ["only tested at batch 1."]),
    increment(2, "A cache layer for long sessions.", ["Gains vanish past 4.5× oversubscription"]),
    increment(3, "No caveat here.", []),
]


def fill(store: Store, records: list[Record]) -> Store:
    encoder = FakeEncoder()
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    return store


_VOCAB = "SELECT term, doc FROM temp.v"


def found(store: Store, query: str) -> list[str]:
    return [h.id for h in search(store, FakeEncoder(), query, 10, SearchFilter(), SearchMode.lexical).results]


def vocabulary(db: sqlite3.Connection) -> dict[str, int]:
    db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, {lexical.FTS_TABLE}, row)")
    return dict(db.execute("SELECT term, doc FROM temp.v"))


def test_a_caveat_is_found_word_for_word_and_by_its_figure(tmp_path: Path) -> None:
    store = fill(Store.open(tmp_path / "idx", create=True), ITEMS)
    assert found(store, "公有云上还买不到") == ["amy/c0"]
    assert found(store, "4.5x oversubscription") == ["amy/c2"]
    # A caveat the text already holds is indexed once.
    assert lexical_rows.document(ITEMS[1])[1] == "caveat restated: only tested at batch 1."


def test_an_index_written_before_gets_the_caveats_on_open(tmp_path: Path) -> None:
    root = tmp_path / "idx"
    fill(Store.open(root, create=True), ITEMS).close()
    db = sqlite3.connect(root / "kb.sqlite")
    with db:  # as schema 6 left it: bodies without caveats, counts FTS5's own
        before = db.execute("SELECT id, title, text, data FROM records ORDER BY rowid").fetchall()
        for rowid, item in enumerate(ITEMS, start=1):
            old = lexical_rows.document(item.model_copy(update={"caveats": []}))
            db.execute(f"UPDATE {lexical.FTS_TABLE} SET title = ?, body = ?, meta = ? WHERE rowid = ?", (*old, rowid))
        db.execute(f"DELETE FROM {COUNTS_TABLE} WHERE term != ?", (TOTAL,))
        vocabulary(db)
        db.execute(f"INSERT INTO {COUNTS_TABLE}(term, records) SELECT term, doc FROM ({_VOCAB})", ())
        db.execute("PRAGMA user_version = 6")
    db.close()
    store = Store.open(root, model="fake")
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == ON_OPEN  # schema 10 waits for a first_date write
    assert found(store, "公有云上还买不到") == ["amy/c0"]
    rows = store.db.execute(f"SELECT title, body, meta FROM {lexical.FTS_TABLE} ORDER BY rowid").fetchall()
    assert [tuple(r) for r in rows] == [lexical_rows.document(r) for r in ITEMS]
    counts = dict(store.db.execute(f"SELECT term, records FROM {COUNTS_TABLE} WHERE term != ?", (TOTAL,)))
    assert counts == vocabulary(store.db)
    assert store.db.execute("SELECT id, title, text, data FROM records ORDER BY rowid").fetchall() == before


def test_a_failed_migration_leaves_the_index_as_it_was(tmp_path: Path) -> None:
    root = tmp_path / "idx"
    fill(Store.open(root, create=True), ITEMS).close()
    db = sqlite3.connect(root / "kb.sqlite")
    with db:
        old = lexical_rows.document(ITEMS[0].model_copy(update={"caveats": []}))
        db.execute(f"UPDATE {lexical.FTS_TABLE} SET title = ?, body = ?, meta = ? WHERE rowid = 1", old)
        db.execute("UPDATE records SET data = 'not json' WHERE rowid = 4")  # the migration fails on the last record
        db.execute("PRAGMA user_version = 6")
    db.close()
    with pytest.raises(json.JSONDecodeError):
        Store.open(root, model="fake")
    db = sqlite3.connect(root / "kb.sqlite")
    assert db.execute("PRAGMA user_version").fetchone()[0] == 6
    assert db.execute(f"SELECT title, body, meta FROM {lexical.FTS_TABLE} WHERE rowid = 1").fetchone() == old
    db.close()
