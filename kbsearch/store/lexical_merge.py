"""Keeping FTS5's index in few segments, so that a search looks each term up once.

FTS5 writes its postings as segments: a write flushes one whenever its
pending postings pass about a megabyte, and merges them later only a few at
a time. A 100k-record ingest left 14, and a search looks every trigram of
its match up in each of them: the candidate match of a hybrid search took
9.9 ms p50 on that index and 5.8 ms on the same index merged into one
segment (docs/performance.md, "The rest of a hybrid search").

Merging all of them (FTS5's ``optimize``) rewrites the whole FTS index: 3 s
at 100k records. So the writer merges when the FTS rows written or deleted
since the last merge reach ``MERGE_SHARE`` of the index: a bulk ingest ends
merged, a day's handful of records costs nothing, and over time a written
record pays for about ten records' worth of merging.
"""

from __future__ import annotations

import math
import sqlite3

import kbsearch.store.lexical_counts as lexical_counts
from kbsearch.store.lexical import FTS_TABLE
from kbsearch.store.sql import read_meta, write_meta

MERGE_SHARE = 0.1
MERGE_AT_LEAST = 1_000
"""Below this many changed rows no merge: a small index's few segments cost a search nothing."""

CHANGED_KEY = "fts_changed_since_merge"


def after_write(db: sqlite3.Connection, changed: int) -> bool:
    """Count ``changed`` FTS rows (written or deleted) and merge the index
    into one segment when the changes since the last merge reach
    ``MERGE_SHARE`` of it. True when it merged. Call inside the write
    transaction, after the counts are flushed: the merge commits with the
    write or not at all."""
    total = lexical_counts.total(db)
    since = changed_since_merge(db, total) + changed
    if since < merge_threshold(total):
        write_meta(db, CHANGED_KEY, str(since))
        return False
    db.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('optimize')")
    write_meta(db, CHANGED_KEY, "0")
    return True


def merge_threshold(total: int) -> int:
    """Changed FTS rows that make the next write merge, for an index of ``total`` rows."""
    return max(MERGE_AT_LEAST, math.ceil(MERGE_SHARE * total))


def changed_since_merge(db: sqlite3.Connection, total: int) -> int:
    """FTS rows changed since the last merge. An index written before this
    count was kept was never merged: all its rows count."""
    stored = read_meta(db, CHANGED_KEY)
    return int(stored) if stored is not None else total


def segments(db: sqlite3.Connection) -> int:
    """How many segments FTS5's index is in now."""
    return int(db.execute(f"SELECT count(DISTINCT segid) FROM {FTS_TABLE}_idx").fetchone()[0])


def status(db: sqlite3.Connection) -> tuple[int, int]:
    """(segments now, changed rows still to come before the next write merges)."""
    total = lexical_counts.total(db)
    return segments(db), max(0, merge_threshold(total) - changed_since_merge(db, total))
