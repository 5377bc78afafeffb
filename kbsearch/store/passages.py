"""Which version of ``Record.passages`` chose an index's stored passages.

An index whose passages another version chose is still searched (its
vectors are valid), but writers and the dedupe rules, which read passages by
position, refuse it and name ``kbsearch reindex``, which re-chooses them: a
text that already has a vector is not embedded again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from kbsearch.errors import KbError
from kbsearch.records import PASSAGES_VERSION, Record, text_hash
from kbsearch.store.sql import load_record, read_meta, write_meta

META_KEY = "passages_version"


def stored_version(db: sqlite3.Connection) -> int:
    """The version that chose the stored passages: an index with records and
    no stamp was written before versions were kept (1); an empty one is current."""
    value = read_meta(db, META_KEY)
    if value:
        return int(value)
    return 1 if db.execute("SELECT 1 FROM records LIMIT 1").fetchone() else PASSAGES_VERSION


def require_current(db: sqlite3.Connection, root: object) -> None:
    version = stored_version(db)
    if version != PASSAGES_VERSION:
        raise KbError(
            f"the index at {root} chose its passages with another version of kbsearch "
            f"(passage version {version}, this one writes {PASSAGES_VERSION})",
            hint="run 'kbsearch reindex' once to re-choose them; text that has a vector is not embedded again",
        )


def stamp(db: sqlite3.Connection) -> None:
    write_meta(db, META_KEY, str(PASSAGES_VERSION))


def rechoose(db: sqlite3.Connection, write_passages: Callable[[sqlite3.Connection, int, Record], None]) -> None:
    """Rewrite the passages of every record whose stored ones another version
    chose, a chunk of records at a time; then stamp the current version."""
    cursor = db.execute("SELECT rowid, data FROM records ORDER BY rowid")
    reader = db.cursor()
    while rows := cursor.fetchmany(2_000):
        stored: dict[int, list[str]] = {}
        marks = ",".join("?" * len(rows))
        query = f"SELECT rowid, content_hash FROM passages WHERE rowid IN ({marks}) ORDER BY rowid, idx"
        for rowid, digest in reader.execute(query, [r[0] for r in rows]):
            stored.setdefault(rowid, []).append(digest)
        for rowid, data in rows:
            record = load_record(data)
            if stored.get(rowid) != [text_hash(t) for t in record.passages()]:
                write_passages(db, rowid, record)
                db.execute("UPDATE records SET content_hash = ? WHERE rowid = ?", (record.content_hash, rowid))
    stamp(db)
