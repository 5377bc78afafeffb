"""The SQLite schema and its named migrations.

``PRAGMA user_version`` counts the migrations applied, so an old index is
brought forward on open and a newer one is refused rather than misread. A
migration is an SQL script, or a function for steps SQL alone cannot do
(indexing the text of records stored as JSON).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from kbsearch import lexical
from kbsearch.errors import KbError

FORMAT_VERSION = 1

Migration = str | Callable[[sqlite3.Connection], None]


def _add_lexical_index(db: sqlite3.Connection) -> None:
    try:
        db.execute(lexical.CREATE_STATEMENTS[0])
    except sqlite3.OperationalError as err:
        raise KbError(
            f"this Python's SQLite cannot build the lexical index: {err}",
            hint="use a Python whose sqlite3 module has FTS5 and the trigram tokenizer (SQLite 3.34 or later)",
        ) from err
    for statement in lexical.CREATE_STATEMENTS[1:]:
        db.execute(statement)
    lexical.backfill(db)


MIGRATIONS: list[tuple[str, Migration]] = [
    (
        "create records, passages, vectors and id mentions",
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE records (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            title TEXT NOT NULL,
            text TEXT NOT NULL,
            date TEXT,
            instance TEXT,
            topic TEXT,
            section TEXT,
            source TEXT,
            file TEXT,
            position INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            data TEXT NOT NULL,
            ingested_at TEXT NOT NULL
        );
        CREATE INDEX records_file ON records(file);
        CREATE INDEX records_kind ON records(kind);
        CREATE INDEX records_date ON records(date);
        CREATE INDEX records_hash ON records(content_hash);
        CREATE TABLE record_arxiv (
            rowid INTEGER NOT NULL REFERENCES records(rowid) ON DELETE CASCADE,
            arxiv_id TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('subject', 'cited')),
            PRIMARY KEY (rowid, arxiv_id, role)
        );
        CREATE INDEX record_arxiv_id ON record_arxiv(arxiv_id);
        CREATE TABLE passages (
            rowid INTEGER NOT NULL REFERENCES records(rowid) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            PRIMARY KEY (rowid, idx)
        ) WITHOUT ROWID;
        CREATE INDEX passages_hash ON passages(content_hash);
        CREATE TABLE vectors (
            model TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (model, content_hash)
        ) WITHOUT ROWID;
        CREATE TABLE id_mentions (
            source TEXT NOT NULL,
            position INTEGER NOT NULL,
            arxiv_id TEXT,
            data TEXT NOT NULL,
            PRIMARY KEY (source, position)
        );
        CREATE INDEX id_mentions_arxiv ON id_mentions(arxiv_id);
    """,
    ),
    ("add the FTS5 lexical index and exact references, filled from existing records", _add_lexical_index),
]


def migrate(db: sqlite3.Connection, *, read_only: bool = False) -> None:
    """Apply the migrations this database has not seen, in one transaction."""
    applied = _version(db)
    if applied > len(MIGRATIONS):
        raise KbError(
            f"the index was written by a newer kbsearch (schema {applied}, this one knows {len(MIGRATIONS)})",
            hint="upgrade kbsearch",
        )
    if applied == len(MIGRATIONS):
        return
    if read_only:
        raise KbError(
            "the index needs a schema upgrade, but its folder is read-only",
            hint="run any kbsearch command on it once with write access",
        )
    db.execute("BEGIN IMMEDIATE")
    try:
        # Read again under the write lock: two processes opening a new index
        # at once both saw version 0, and only the first may create tables.
        for number in range(_version(db), len(MIGRATIONS)):
            step = MIGRATIONS[number][1]
            if isinstance(step, str):
                for statement in _statements(step):
                    db.execute(statement)
            else:
                step(db)
            db.execute(f"PRAGMA user_version = {number + 1}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def _statements(script: str) -> list[str]:
    """The statements of a script, one each, for execute() inside a transaction
    (executescript() would commit first)."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip():
        statements.append(pending.strip())
    return statements
