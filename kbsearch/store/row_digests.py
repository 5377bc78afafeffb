"""What a record read from the store was read from, to tell a copy kept across writes is still right.

A record's row is its JSON (``records.data``: ``by_rowids`` reads nothing else); its passages
are chosen from that JSON, and their vectors, and the judge's of its whole text, are keyed by
the texts' hashes. So a copy read from a row whose JSON is byte for byte the same is the record
a fresh read gives, vectors and all, as long as no reindex has embedded the same texts again.

Neither the rowid nor the content hash would do: SQLite gives a deleted last row's rowid to
the next record inserted, and the content hash covers the embedded text alone, not the date,
the ids or the sources a record's JSON changes in place.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable

from kbsearch.records import Record
from kbsearch.store.sql import load_record, read_meta, select_in_chunks

REBOUND_KEY = "rebound"
"""The generation of the last reindex (``writer.rebind_model``), which may embed every text
again: vectors kept from before it are another model's, or another run's of the same one."""

_ROWS = "SELECT rowid, data FROM records WHERE rowid IN ({marks})"


def digest(data: str) -> bytes:
    """16 bytes that differ whenever a row's JSON does."""
    return hashlib.blake2b(data.encode("utf-8"), digest_size=16).digest()


def records_with_digests(db: sqlite3.Connection, rowids: Iterable[int]) -> dict[int, tuple[Record, bytes]]:
    """rowid → its record and the digest of the row it was read from (one read of each row)."""
    return {
        rowid: (load_record(data), digest(data))
        for rowid, data in select_in_chunks(db, _ROWS, [int(r) for r in rowids])
    }


def digests(db: sqlite3.Connection, rowids: Iterable[int]) -> dict[int, bytes]:
    """rowid → the digest of its row now; a row no longer stored is left out."""
    return {rowid: digest(data) for rowid, data in select_in_chunks(db, _ROWS, [int(r) for r in rowids])}


def vectors_basis(db: sqlite3.Connection) -> tuple[str | None, ...]:
    """What every stored vector is read under: the model, its dimension, the judge and the last reindex."""
    return tuple(read_meta(db, key) for key in ("model", "dim", "judge", REBOUND_KEY))
