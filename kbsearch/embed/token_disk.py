"""Token vectors kept on disk between processes, bounded.

check's alignment reads e5's token vectors of the item and of each short
candidate. A process keeps what it encoded (``tokens.RememberedTokens``),
but a new process (a cold ``kbsearch check``, the next day's server)
encoded every candidate again: most of a first check's time. What one
process encodes is written here, keyed by the text, and read by the next.
Checked items become tomorrow's candidates, so a daily workflow mostly
finds its candidates here; records that came in through ``ingest`` are put
here by a background fill (``kbsearch/kb/token_fill.py``), not by the ingest.

One SQLite file per model build in the model cache (``$KBSEARCH_CACHE``),
shared by every index: a token vector depends on the text and the model
only. Rows are float16, as the process keeps them, so a text read from disk
gives the numbers a text kept in memory gives. Past ``max_rows`` token
rows the texts written first go (a read writes nothing). It is a cache: a file that cannot be
opened, read or written (read-only, locked, corrupt) is passed over, and the
vectors are computed as before.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

MAX_DISK_ROWS = 1_000_000
"""Token rows kept (e5: 768 bytes each in float16, about 0.8 GB): some 25,000
texts at the dev streams' median of 40 tokens."""
STAMP_STEP = 1e-6
"""Seconds between two texts ranked by ``DiskTokens.rank``: a million texts span one
second, and ``time.time()``'s doubles still tell two stamps a microsecond apart."""
_BUSY_MS = 200
_AT_ONCE = 500


class DiskTokens:
    """Rows of vectors by text (float16 token vectors unless ``dtype`` says
    otherwise), in one SQLite file."""

    def __init__(self, path: Path, max_rows: int = MAX_DISK_ROWS, dtype: type[np.floating] = np.float16) -> None:
        self.path = path
        self.max_rows = max_rows
        self.dtype = dtype
        self._db: sqlite3.Connection | None = None
        self._failed = False
        # One connection for the process's threads: a server's checks read and write
        # the judge's passage vectors at once (JudgedPassages calls outside its own lock).
        self._lock = threading.Lock()

    def get(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """text → its rows (in ``dtype``), for the texts on disk."""
        with self._lock:
            return self._get(texts)

    def put(self, vectors: dict[str, np.ndarray]) -> None:
        """Keep these texts' rows (in ``dtype``), then let the oldest go past the bound."""
        with self._lock:
            self._put(vectors)

    def rank(self, texts: Sequence[str], latest: float) -> None:
        """Order these texts' rows for the trim as ``texts`` lists them, the first kept
        longest: the first is stamped ``latest``, each next one ``STAMP_STEP`` earlier.
        A text not on disk is passed over."""
        with self._lock:
            db = self._open()
            if db is None or not texts:
                return
            stamps = [(latest - i * STAMP_STEP, _key(text)) for i, text in enumerate(texts)]
            try:
                with db:
                    db.executemany("UPDATE tokens SET written = ? WHERE key = ?", stamps)
            except sqlite3.Error:
                self._give_up()

    def _get(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        keys = {_key(text): text for text in texts}
        found: dict[str, np.ndarray] = {}
        db = self._open()
        if db is None or not keys:
            return found
        wanted = list(keys)
        try:
            for start in range(0, len(wanted), _AT_ONCE):
                chunk = wanted[start : start + _AT_ONCE]
                marks = ",".join("?" * len(chunk))
                sql = f"SELECT key, dim, rows FROM tokens WHERE key IN ({marks})"
                for key, dim, blob in db.execute(sql, chunk):
                    found[keys[key]] = np.frombuffer(blob, dtype=self.dtype).reshape(-1, dim)
        except (sqlite3.Error, ValueError):  # ValueError: a row whose bytes are not its shape
            self._give_up()
            return {}
        return found

    def _put(self, vectors: dict[str, np.ndarray]) -> None:
        db = self._open()
        if db is None or not vectors:
            return
        now = time.time()
        rows = [
            (_key(text), int(m.shape[1]), len(m), now, _blob(m, self.dtype))  # no tokens: its width kept
            for text, m in vectors.items()
        ]
        try:
            with db:
                db.executemany("INSERT OR REPLACE INTO tokens(key, dim, n, written, rows) VALUES (?, ?, ?, ?, ?)", rows)
                self._bound(db)
        except sqlite3.Error:
            self._give_up()

    def _bound(self, db: sqlite3.Connection) -> None:
        held = int(db.execute("SELECT coalesce(sum(n), 0) FROM tokens").fetchone()[0])
        if held <= self.max_rows:
            return
        # Down to 90% at once, the first written first: a full cache is not
        # trimmed on every write, and a read never writes.
        excess = held - int(self.max_rows * 0.9)
        db.execute(
            "DELETE FROM tokens WHERE key IN (SELECT key FROM "
            "(SELECT key, sum(n) OVER (ORDER BY written, key) - n AS before FROM tokens) WHERE before < ?)",
            (excess,),
        )

    def _open(self) -> sqlite3.Connection | None:
        if self._db is not None or self._failed:
            return self._db
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=_BUSY_MS / 1000, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode = WAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS tokens (key TEXT PRIMARY KEY, dim INTEGER NOT NULL, "
                "n INTEGER NOT NULL, written REAL NOT NULL, rows BLOB NOT NULL)"
            )
            # The bound sums every text's rows after each write: through the
            # table that read its blob pages (74 ms at 18k texts), through this 2 ms.
            db.execute("CREATE INDEX IF NOT EXISTS tokens_size ON tokens(n)")
        except (sqlite3.Error, OSError):
            self._failed = True
            return None
        self._db = db
        return db

    def _give_up(self) -> None:
        """A cache that failed once is left alone for the rest of the process."""
        self._failed = True
        if self._db is not None:
            self._db.close()
            self._db = None

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _blob(rows: np.ndarray, dtype: type[np.floating]) -> bytes:
    return np.ascontiguousarray(rows, dtype=dtype).tobytes()
