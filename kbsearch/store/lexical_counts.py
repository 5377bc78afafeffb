"""How many records hold each trigram, kept beside the FTS5 index.

A term's weight in a search is its inverse document frequency, and choosing
which terms a candidate match may walk needs the same count. FTS5 can give
it (``fts5vocab``), but only by walking the term's whole posting list: at a
million short records a common trigram ("the", "ion", "模型") is held by
hundreds of thousands of them, and a query has dozens of trigrams. Kept in a
table, a count is one primary-key read.

The table holds, for every trigram the FTS rows hold, the number of records
holding it in any column, and under the empty term the number of records.
The writer keeps it in step inside the transaction that writes the FTS rows:
each record written adds its trigrams, each record replaced or deleted takes
its old ones away (read from its FTS row before it goes), and the changes of
one part of a write are summed in memory and written once. Trigrams are cut
from the folded text exactly as the FTS5 ``trigram`` tokenizer cuts it: every
three consecutive characters of one column, spaces and punctuation included.
"""

from __future__ import annotations

import sqlite3

import numpy as np

COUNTS_TABLE = "lexical_counts"
TOTAL = ""
"""The term under which the number of records indexed is kept (no trigram is empty)."""

_FTS_TABLE = "records_fts"
_AT_ONCE = 500  # terms bound in one query, well under SQLite's limit on parameters


def trigrams(document: tuple[str, ...]) -> set[str]:
    """The distinct trigrams of a record's FTS columns, as the tokenizer cuts them."""
    return {_text(code) for code in _codes(document).tolist()}


# A trigram is packed into one int64, 21 bits a character (Unicode needs 21),
# so that a record's trigrams are cut, made distinct and counted by numpy: as
# Python strings in a Counter they cost a bulk import 0.3 ms a record.
_BITS = 21
_MASK = (1 << _BITS) - 1


def _codes(document: tuple[str, ...]) -> np.ndarray:
    """The record's distinct trigrams, packed, sorted."""
    packed = []
    for part in document:
        if len(part) >= 3:
            chars = np.frombuffer(part.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
            packed.append((chars[:-2] << 2 * _BITS) | (chars[1:-1] << _BITS) | chars[2:])
    return np.unique(np.concatenate(packed)) if packed else np.empty(0, dtype=np.int64)


def _text(code: int) -> str:
    return chr(code >> 2 * _BITS) + chr((code >> _BITS) & _MASK) + chr(code & _MASK)


class PendingCounts:
    """The count changes of one part of a write transaction, summed at ``flush``."""

    def __init__(self) -> None:
        self.added: list[np.ndarray] = []
        self.removed: list[np.ndarray] = []
        self.records = 0

    def add(self, document: tuple[str, ...]) -> None:
        self.added.append(_codes(document))
        self.records += 1

    def remove(self, document: tuple[str, ...]) -> None:
        self.removed.append(_codes(document))
        self.records -= 1

    def remove_stored(self, db: sqlite3.Connection, rowid: int) -> None:
        """Take away the trigrams of the FTS row about to be deleted, if there is one."""
        row = db.execute(f"SELECT title, body, meta FROM {_FTS_TABLE} WHERE rowid = ?", (rowid,)).fetchone()
        if row is not None:
            self.remove(tuple(part or "" for part in row))

    def changes(self) -> list[tuple[str, int]]:
        """(term, change) of every count that changes, the total's included."""
        codes = np.concatenate([np.empty(0, dtype=np.int64), *self.added, *self.removed])
        signs = np.concatenate([np.ones(sum(len(a) for a in self.added)), -np.ones(sum(len(r) for r in self.removed))])
        unique, where = np.unique(codes, return_inverse=True)
        sums = np.bincount(where, weights=signs, minlength=len(unique)).astype(np.int64)
        found = [(_text(code), change) for code, change in zip(unique.tolist(), sums.tolist(), strict=True) if change]
        return found + ([(TOTAL, self.records)] if self.records else [])

    def flush(self, db: sqlite3.Connection) -> None:
        """Write the summed changes; a count that reaches zero goes."""
        changes = self.changes()
        self.added, self.removed, self.records = [], [], 0
        db.executemany(
            f"INSERT INTO {COUNTS_TABLE}(term, records) VALUES (?1, max(?2, 0)) "
            "ON CONFLICT(term) DO UPDATE SET records = max(records + ?2, 0)",
            changes,
        )
        if any(change < 0 for _, change in changes):
            db.execute(f"DELETE FROM {COUNTS_TABLE} WHERE records = 0 AND term != ?", (TOTAL,))


def counts(db: sqlite3.Connection, terms: list[str]) -> dict[str, int]:
    """Term → records holding it (absent: none)."""
    found: dict[str, int] = {}
    wanted = sorted(set(terms))
    for start in range(0, len(wanted), _AT_ONCE):
        chunk = wanted[start : start + _AT_ONCE]
        marks = ",".join("?" * len(chunk))
        found.update(db.execute(f"SELECT term, records FROM {COUNTS_TABLE} WHERE term IN ({marks})", chunk))
    return found


def total(db: sqlite3.Connection) -> int:
    """The number of records indexed, without counting them."""
    row = db.execute(f"SELECT records FROM {COUNTS_TABLE} WHERE term = ?", (TOTAL,)).fetchone()
    return int(row[0]) if row else 0
