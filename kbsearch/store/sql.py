"""SQL helpers the store's modules and ``doctor`` share.

A FAISS id packs a record's rowid and its passage number as
``rowid * MAX_PASSAGES + idx``: ``VECTOR_ID`` packs it in SQL over
``passages p`` (the only place ids are made), ``unpack_vector_id`` and
``vector_rowids`` read it. ``select_in_chunks`` runs one query per 500 values
of an ``IN (…)`` list, below SQLite's limit on parameters, so no caller
writes out the ``?,?,?`` itself.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from kbsearch.records import MAX_PASSAGES, Record

VECTOR_ID = f"(p.rowid * {MAX_PASSAGES} + p.idx)"
"""A passage's vector id, in SQL over ``passages p``."""
CHUNK = 500


def unpack_vector_id(vector_id: int) -> tuple[int, int]:
    """(rowid, passage number) of a vector id."""
    rowid, idx = divmod(int(vector_id), MAX_PASSAGES)
    return rowid, idx


def vector_rowids(vector_ids: np.ndarray) -> np.ndarray:
    """The record rowid of each vector id (``unpack_vector_id`` over an array)."""
    return vector_ids // MAX_PASSAGES


def marks(count: int) -> str:
    """``?,?,?`` for ``count`` parameters."""
    return ",".join("?" * count)


def chunks(items: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def select_in_chunks(
    db: sqlite3.Connection, sql: str, values: Iterable[Any], before: Sequence[Any] = (), after: Sequence[Any] = ()
) -> Iterator[Any]:
    """The rows of ``sql`` for every value, a chunk at a time.

    ``sql`` holds one ``{marks}`` where the chunk's placeholders go; ``before``
    and ``after`` are the parameters on either side of them.
    """
    for chunk in chunks(list(values)):
        yield from db.execute(sql.format(marks=marks(len(chunk))), [*before, *chunk, *after])


def load_record(data: str) -> Record:
    """A record from its stored JSON (the stored content hash is recomputed, not trusted)."""
    payload = json.loads(data)
    payload.pop("content_hash", None)
    return Record.model_validate(payload)


def float32_rows(blobs: Iterable[bytes], dim: int) -> np.ndarray:
    """Stored vector blobs as one float32 matrix of ``dim`` columns."""
    return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(-1, dim)


def read_meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def write_meta(db: sqlite3.Connection, key: str, value: str) -> None:
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))
