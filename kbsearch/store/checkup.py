"""What ``kbsearch doctor`` reads of an index and nothing else does.

Kept apart from the ``Store`` facade so that it stays the surface of
everyday reads; each function reads one thing through the store's connection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import kbsearch.store.passages as passages

if TYPE_CHECKING:
    from kbsearch.store.facade import Store


def integrity_problems(store: Store) -> list[str]:
    """SQLite's own integrity check: ``["ok"]`` when the file is sound."""
    return [r[0] for r in store.db.execute("PRAGMA integrity_check")]


def dangling_rows(store: Store) -> int:
    """Rows whose foreign key points at a record that does not exist."""
    return len(store.db.execute("PRAGMA foreign_key_check").fetchall())


def stored_passages(store: Store) -> dict[int, list[str]]:
    """rowid → the content hashes of its stored passages, in passage order."""
    stored: dict[int, list[str]] = {}
    for rowid, digest in store.db.execute("SELECT rowid, content_hash FROM passages ORDER BY rowid, idx"):
        stored.setdefault(rowid, []).append(digest)
    return stored


def passages_version(store: Store) -> int:
    """The ``Record.passages`` version that chose the stored passages."""
    return passages.stored_version(store.db)
