"""An Encoder wrapper that keeps every vector it computed, keyed by model and text.

Benchmarks replay the same texts many times (three streams, two views, two
models); with the vectors kept in one SQLite file outside the repository a
rerun embeds nothing it embedded before. The wrapper is an ``Encoder`` like
any other, so the code under measurement is the code the CLI runs.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kbsearch.embed import Encoder, TokenEncoder

CACHE_DIR = Path(os.environ.get("KBSEARCH_GATE_CACHE", "/work/cache/gate"))
"""Where vectors, streams and replays are kept (``$KBSEARCH_GATE_CACHE``)."""


def _keys(texts: Sequence[str]) -> list[str]:
    return [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]


def _read(db: sqlite3.Connection, select: str, keys: list[str]) -> dict[str, tuple]:
    """Rows of ``select`` (its first column the key, ``IN (...)`` appended) for the keys held."""
    unique = list(dict.fromkeys(keys))
    found: dict[str, tuple] = {}
    for start in range(0, len(unique), 500):
        chunk = unique[start : start + 500]
        found.update((row[0], row[1:]) for row in db.execute(f"{select} IN ({','.join('?' * len(chunk))})", chunk))
    return found


def _first_missing(keys: list[str], held: dict) -> dict[str, int]:
    """Each key not held → the first position it occurs at."""
    first: dict[str, int] = {}
    for i, key in enumerate(keys):
        if key not in held:
            first.setdefault(key, i)
    return first


class CachedEncoder:
    """``encode`` through a persistent (model, sha256 of text) → vector table."""

    def __init__(self, inner: Encoder, folder: Path = CACHE_DIR) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        folder.mkdir(parents=True, exist_ok=True)
        # Vectors made another way (e5's each text alone, ``sentence_version``) go to a file of their own.
        version = getattr(inner, "sentence_version", None)
        name = f"vectors-{inner.model_id}" + (f"-v{version}" if version else "")
        self.db = sqlite3.connect(folder / f"{name}.sqlite", check_same_thread=False)
        self.db.execute("CREATE TABLE IF NOT EXISTS v (h TEXT PRIMARY KEY, vec BLOB)")
        self.computed = 0
        self._writing = threading.Lock()  # encode is called from search's worker threads too

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        with self._writing:
            return self._encode(texts)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        keys = _keys(texts)
        found = {
            h: np.frombuffer(b, dtype=np.float32)
            for h, (b,) in _read(self.db, "SELECT h, vec FROM v WHERE h", keys).items()
        }
        first = _first_missing(keys, found)
        if first:
            vectors = self.inner.encode([texts[i] for i in first.values()])
            self.computed += len(first)
            for key, vector in zip(first, vectors, strict=True):
                found[key] = np.asarray(vector, dtype=np.float32)
            self.db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)", [(k, found[k].tobytes()) for k in first])
            self.db.commit()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, key in enumerate(keys):
            out[i] = found[key]
        return out


class CachedTokenEncoder:
    """``encode_tokens`` through the same kind of table: float16 rows, with
    their count, per (model, sha256 of text)."""

    def __init__(self, inner: TokenEncoder, folder: Path = CACHE_DIR) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        folder.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(folder / f"tokens-{inner.model_id}.sqlite", check_same_thread=False)
        self.db.execute("CREATE TABLE IF NOT EXISTS t (h TEXT PRIMARY KEY, n INTEGER, vec BLOB)")
        self.computed = 0

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.inner.count_tokens(texts)

    def encode_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        keys = _keys(texts)
        held = _read(self.db, "SELECT h, n, vec FROM t WHERE h", keys)
        found = {h: np.frombuffer(b, dtype=np.float16).reshape(n, -1).astype(np.float32) for h, (n, b) in held.items()}
        first = _first_missing(keys, found)
        if first:
            vectors = self.inner.encode_tokens([texts[i] for i in first.values()])
            self.computed += len(first)
            for key, rows in zip(first, vectors, strict=True):
                found[key] = rows.astype(np.float16).astype(np.float32)
            self.db.executemany(
                "INSERT OR REPLACE INTO t VALUES (?, ?, ?)",
                [(k, len(found[k]), found[k].astype(np.float16).tobytes()) for k in first],
            )
            self.db.commit()
        return [found[k] for k in keys]
