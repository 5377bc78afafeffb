"""The default model with its answers for the bench corpus served from the cache.

A ``python:corpus_encoder:make`` line in a bench-only models.txt, named
``use-multilingual-v3``, lets ``kbsearch ingest`` import the million-record
corpus through its ordinary code path (parse, plan, embed, SQLite, the vector
index) without encoding a million texts again: each text the corpus build
already encoded with the real model (``bench/corpus.py``) is looked up by its
content hash; anything else goes to the real model, which is loaded either
way, so the process holds the same model memory as a real import. The bench
reports which rows use it.
"""

from __future__ import annotations

import atexit
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchlib import mark
from corpus import CACHE, MODEL, stored_vectors, text_hash

from kbsearch.embed import Encoder, load_encoder
from kbsearch.models import load_models

ROOT = Path(__file__).resolve().parents[1]


class CachedEncoder:
    def __init__(self, name: str, real: Encoder) -> None:
        self.model_id = name
        self.dim = real.dim
        self.real = real
        self.db = sqlite3.connect(CACHE / f"vectors-{MODEL}.sqlite", check_same_thread=False)
        self.served = 0
        self.encoded = 0
        atexit.register(lambda: mark("cached-encoder", served=self.served, encoded=self.encoded))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        hashes = [text_hash(t) for t in texts]
        found = stored_vectors(self.db, hashes)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        misses = [i for i, h in enumerate(hashes) if h not in found]
        for i, h in enumerate(hashes):
            if h in found:
                out[i] = np.frombuffer(found[h], dtype=np.float32)
        if misses:
            out[misses] = self.real.encode([texts[i] for i in misses])
        self.served += len(texts) - len(misses)
        self.encoded += len(misses)
        return out


def make(spec: object) -> CachedEncoder:
    real_spec = next(s for s in load_models(ROOT / "models.txt") if s.name == MODEL)
    return CachedEncoder(getattr(spec, "name", MODEL), load_encoder(real_spec))


def judged_models_file(folder: Path) -> Path:
    """A models.txt whose default is this encoder with the default judge (the
    real e5, run by the ingest and read by audit) named on its line."""
    real = {s.name: s for s in load_models(ROOT / "models.txt")}
    judge = real[MODEL].judge
    judge_line = next(
        line for line in (ROOT / "models.txt").read_text(encoding="utf-8").splitlines() if line.split()[:1] == [judge]
    )
    path = folder / "models-judged.txt"
    path.write_text(f"{MODEL}  python:corpus_encoder:make  dim=512 judge={judge}\n{judge_line}\n", encoding="utf-8")
    return path


def models_file(folder: Path) -> Path:
    """A models.txt whose default is this encoder under the real model's name."""
    path = folder / "models-cached.txt"
    path.write_text(f"{MODEL}  python:corpus_encoder:make  dim=512\n", encoding="utf-8")
    return path
