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
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kbsearch.embed import Encoder, TokenEncoder

CACHE_DIR = Path(os.environ.get("KBSEARCH_GATE_CACHE", "/work/cache/gate"))
"""Where vectors, streams and replays are kept (``$KBSEARCH_GATE_CACHE``)."""


class CachedEncoder:
    """``encode`` through a persistent (model, sha256 of text) → vector table."""

    def __init__(self, inner: Encoder, folder: Path = CACHE_DIR) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        folder.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(folder / f"vectors-{inner.model_id}.sqlite")
        self.db.execute("CREATE TABLE IF NOT EXISTS v (h TEXT PRIMARY KEY, vec BLOB)")
        self.computed = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        keys = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            rows = self.db.execute(f"SELECT h, vec FROM v WHERE h IN ({','.join('?' * len(chunk))})", chunk)
            found.update((h, np.frombuffer(b, dtype=np.float32)) for h, b in rows)
        missing = [i for i, k in enumerate(keys) if k not in found]
        if missing:
            first = {}
            for i in missing:
                first.setdefault(keys[i], i)
            order = list(first.values())
            vectors = self.inner.encode([texts[i] for i in order])
            self.computed += len(order)
            for i, vector in zip(order, vectors, strict=True):
                found[keys[i]] = np.asarray(vector, dtype=np.float32)
            self.db.executemany(
                "INSERT OR REPLACE INTO v VALUES (?, ?)", [(keys[i], found[keys[i]].tobytes()) for i in order]
            )
            self.db.commit()
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
        self.db = sqlite3.connect(folder / f"tokens-{inner.model_id}.sqlite")
        self.db.execute("CREATE TABLE IF NOT EXISTS t (h TEXT PRIMARY KEY, n INTEGER, vec BLOB)")
        self.computed = 0

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.inner.count_tokens(texts)

    def encode_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        keys = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            rows = self.db.execute(f"SELECT h, n, vec FROM t WHERE h IN ({','.join('?' * len(chunk))})", chunk)
            found.update((h, np.frombuffer(b, dtype=np.float16).reshape(n, -1).astype(np.float32)) for h, n, b in rows)
        first = {k: i for i, k in reversed(list(enumerate(keys))) if k not in found}
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
