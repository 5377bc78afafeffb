"""What one ingest has seen, kept in SQLite rather than in Python memory.

Ingest plans a bulk input a chunk at a time inside its write transaction.
For each chunk it needs the stored rows of those ids, and across the run the
ids seen with the file that gave each (an id from two files refuses the
second, see ``ownership``, and ``--prune`` deletes what a file no longer
gives): a million ids live in a temporary table, not a Python set.
"""

from __future__ import annotations

import sqlite3

from kbsearch.store.skips import RememberedSkip, remembered
from kbsearch.store.sql import select_in_chunks


class IngestLedger:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS ingest_seen (id TEXT PRIMARY KEY, file TEXT NOT NULL)")
        self.db.execute("DELETE FROM temp.ingest_seen")

    def stored_rows(self, record_ids: list[str]) -> dict[str, tuple[str, str | None]]:
        """Record id → (stored JSON, file it was read from) for the ids that exist."""
        sql = "SELECT id, data, file FROM records WHERE id IN ({marks})"
        return {rid: (data, file) for rid, data, file in select_in_chunks(self.db, sql, record_ids)}

    def seen_from(self, record_ids: list[str]) -> dict[str, str]:
        """Id → the file that gave it, for the ids already noted in this ingest."""
        sql = "SELECT id, file FROM temp.ingest_seen WHERE id IN ({marks})"
        return dict(select_in_chunks(self.db, sql, record_ids))

    def mark_seen(self, record_ids: list[str], file: str) -> None:
        """Note that ``file`` gave these ids."""
        self.db.executemany("INSERT OR REPLACE INTO temp.ingest_seen VALUES (?, ?)", ((r, file) for r in record_ids))

    def forget_file(self, file: str) -> None:
        """Forget the ids ``file`` gave (a file refused after some of its ids were noted)."""
        self.db.execute("DELETE FROM temp.ingest_seen WHERE file = ?", (file,))

    def unseen_of_file(self, file: str) -> list[str]:
        """Ids stored as read from ``file`` that this ingest did not see in it."""
        rows = self.db.execute(
            "SELECT id FROM records WHERE file = ? AND id NOT IN (SELECT id FROM temp.ingest_seen WHERE file = ?)",
            (file, file),
        )
        return [r[0] for r in rows]

    def files_holding(self, hashes: list[str]) -> list[str]:
        """The stored files holding a record of one of these content hashes (copies, see ``ingest.copies``)."""
        sql = "SELECT DISTINCT file FROM records WHERE file IS NOT NULL AND content_hash IN ({marks})"
        return sorted({file for (file,) in select_in_chunks(self.db, sql, hashes)})

    def copy_keys_of_file(self, file: str) -> list[tuple[str, str | None, str | None]]:
        """(content hash, instance, date) of each record stored as read from ``file``."""
        return list(self.db.execute("SELECT content_hash, instance, date FROM records WHERE file = ?", (file,)))

    def skipped(self, record_ids: list[str]) -> dict[str, RememberedSkip]:
        """Id → the skip ``check --accept --skip-duplicates`` remembered of it (``store.skips``)."""
        return remembered(self.db, record_ids)
