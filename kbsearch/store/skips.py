"""The DUPLICATEs ``check --accept --skip-duplicates`` left out, remembered.

The gate decided not to store them; the file still holds them, and a nightly
``ingest`` of every briefing would store them after all. So the accept that
skips an item writes, in its own transaction, the item's id and content hash,
its file, the records it repeats and when; ``ingest`` leaves out an item of
that id and hash (``--include-skipped`` stores it). An item stored later, by
an edit, ``--include-skipped`` or an accept that lets it through, is forgotten
in the transaction that stores it. The table comes with schema 12
(``migrations.SKIPPED_ITEMS``), made by the first accept that skips: an index
below it remembers nothing and holds nothing to forget.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3

from pydantic import BaseModel, Field

import kbsearch.store.migrations as migrations
from kbsearch.store.sql import select_in_chunks


class RememberedSkip(BaseModel):
    """One DUPLICATE an accept left out."""

    id: str
    content_hash: str
    file: str | None = None
    """The file it was read from (None: text given without a file)."""
    repeats: list[str] = Field(default_factory=list)
    """The stored records (or earlier items of its input) it repeats."""
    skipped_at: str = Field(default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))


def remember(db: sqlite3.Connection, skips: list[RememberedSkip]) -> None:
    """Inside the write's transaction: remember ``skips`` (an item skipped again is remembered anew)."""
    if not skips:
        return
    migrations.mark_skipped_items(db)
    db.executemany(
        "INSERT OR REPLACE INTO skipped_items(id, content_hash, file, repeats, skipped_at) VALUES (?, ?, ?, ?, ?)",
        [(s.id, s.content_hash, s.file, json.dumps(s.repeats), s.skipped_at) for s in skips],
    )


def forget(db: sqlite3.Connection, record_ids: list[str]) -> None:
    """Inside the write's transaction: forget the skips of these ids (they are being stored)."""
    if record_ids and _has_table(db):
        db.executemany("DELETE FROM skipped_items WHERE id = ?", [(rid,) for rid in record_ids])


def remembered(db: sqlite3.Connection, record_ids: list[str]) -> dict[str, RememberedSkip]:
    """Id → its remembered skip, for the ids that have one."""
    if not record_ids or not _has_table(db):
        return {}
    sql = "SELECT id, content_hash, file, repeats, skipped_at FROM skipped_items WHERE id IN ({marks})"
    return {
        rid: RememberedSkip(id=rid, content_hash=h, file=f, repeats=json.loads(r), skipped_at=at)
        for rid, h, f, r, at in select_in_chunks(db, sql, record_ids)
    }


def skipped_note(db: sqlite3.Connection, record_id: str) -> tuple[str, str | None] | None:
    """Why no record has ``record_id`` when an accept skipped it, and how to read it still
    (``explain FILE#N Y`` reads the item from its file; None without a file), else None. A new
    user asked ``explain``/``similar`` for the id check showed them and was told only that no
    record has it (probe 40)."""
    skip = remembered(db, [record_id]).get(record_id)
    if skip is None:
        return None
    of = f" of {', '.join(skip.repeats)}" if skip.repeats else ""
    said = f"{record_id} was skipped at the gate as a DUPLICATE{of} on {skip.skipped_at[:10]}"
    said += " (check --accept --skip-duplicates)"
    number = record_id.rpartition("#")[2]
    if skip.file is None or not number.isdigit():
        return said, None
    return said, f"explain {skip.file}#{number} {skip.repeats[0] if skip.repeats else 'B'} reads it from its file"


def skipped_from(db: sqlite3.Connection, file: str) -> list[RememberedSkip]:
    """The remembered skips of the items read from ``file``, by id."""
    if not _has_table(db):
        return []
    rows = db.execute(
        "SELECT id, content_hash, repeats, skipped_at FROM skipped_items WHERE file = ? ORDER BY id", (file,)
    )
    return [
        RememberedSkip(id=i, content_hash=h, file=file, repeats=json.loads(r), skipped_at=at) for i, h, r, at in rows
    ]


def _has_table(db: sqlite3.Connection) -> bool:
    return migrations.schema(db) >= migrations.SKIPPED_ITEMS
