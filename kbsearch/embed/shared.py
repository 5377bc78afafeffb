"""One encoder shared by several threads, loaded on first use by whichever asks first."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from kbsearch.embed import Encoder, load_encoder
from kbsearch.models import ModelSpec


class SharedEncoder:
    """Loads the model on first use, once, whichever thread asks first, and
    encodes one batch at a time.

    A query takes milliseconds to embed; taking turns costs little and keeps
    the model's own state (tokenizer buffers, torch's thread pool) out of
    reach of concurrent calls from the TUI's gateways or a server's readers.
    """

    def __init__(self, spec: ModelSpec, inner: Encoder | None = None) -> None:
        self.spec = spec
        self._lock = threading.Lock()
        self._encoding = threading.Lock()
        self._inner = inner

    def _get(self) -> Encoder:
        with self._lock:
            if self._inner is None:
                self._inner = load_encoder(self.spec)
            return self._inner

    @property
    def model_id(self) -> str:
        return self._get().model_id

    @property
    def dim(self) -> int:
        return self._get().dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        encoder = self._get()
        with self._encoding:
            return encoder.encode(texts)
