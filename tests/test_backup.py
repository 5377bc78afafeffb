"""``kbsearch backup DEST``: a consistent copy of an index in use (probe 24).

doctor's fix for a broken database was "restore kb.sqlite from a backup", and nothing said how
to take one of a live index (``cp`` can miss what is still in the WAL). The copy is SQLite's
online backup of the database and the vector cache beside it, under the writer lock: a write
under way is waited for, and the copy holds all of it.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from serve_support import build_index

from fake_encoder import FakeEncoder
from kbsearch.cli import main
from kbsearch.ingest import ingest_records
from kbsearch.kb import LOCK_NAME, examine
from kbsearch.kb.backup import backup
from kbsearch.kb.writer_lock import WriterLock
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    return build_index(tmp_path)


def ids(index: Path) -> set[str]:
    db = sqlite3.connect(f"{(index / 'kb.sqlite').as_uri()}?mode=ro", uri=True)
    try:
        return {row[0] for row in db.execute("SELECT id FROM records")}
    finally:
        db.close()


def write_two(index: Path) -> None:
    encoder = FakeEncoder()
    records = [Record(id=f"new/{n}", kind=Kind.increment, title=f"Zyx-{n} packs decode batches") for n in (1, 2)]
    store = Store.open(index)
    try:
        ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    finally:
        store.close()


def test_a_backup_waits_for_a_write_under_way_and_holds_all_of_it(index: Path, tmp_path: Path) -> None:
    waited = threading.Event()
    done: list[object] = []
    lock = WriterLock(index / LOCK_NAME, None)
    with lock:  # a write is under way: the backup waits for it
        copier = threading.Thread(target=lambda: done.append(backup(index, tmp_path / "bk", on_wait=waited.set)))
        copier.start()
        assert waited.wait(10)
        write_two(index)  # the writer's work, under the lock it holds
        assert not done
    copier.join(30)
    assert done
    assert sorted(p.name for p in (tmp_path / "bk").iterdir()) == ["kb.sqlite", "manifest.json", "vectors.faiss"]
    assert done and ids(tmp_path / "bk") == ids(index) and len(ids(index)) == 6
    report = examine(tmp_path / "bk")
    assert report.healthy, report


def test_a_backup_refuses_a_destination_with_files(
    index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "taken"
    dest.mkdir()
    (dest / "notes.txt").write_text("mine")
    for target in (dest, index / "inside"):
        assert main(["backup", str(target), "--index", str(index)]) == 2
        said = capsys.readouterr().err
        assert said.count("\n") == 1 and "nothing was copied" in said, said
    assert [p.name for p in dest.iterdir()] == ["notes.txt"] and not (index / "inside").exists()
    assert main(["backup", str(tmp_path / "fresh"), "--index", str(index)]) == 0
    assert "4 records" in capsys.readouterr().out
