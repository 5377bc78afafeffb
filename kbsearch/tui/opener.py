"""Opening the knowledge base once per gateway, with one model between them."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import cast

import numpy as np

from kbsearch.embed import Encoder, load_encoder
from kbsearch.kb import KnowledgeBase, index_dir
from kbsearch.models import ModelSpec, resolve_model


class SharedEncoder:
    """Loads the model on first use, once, whichever gateway's thread asks first."""

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self._lock = threading.Lock()
        self._inner: Encoder | None = None

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
        return self._get().encode(texts)


class Opener:
    """``KnowledgeBase.open(index, model)``, sharing the encoder between calls.

    The model is resolved inside the call, on a gateway thread, so that an
    unknown model becomes a notification like any other error.
    """

    def __init__(self, index: str | os.PathLike[str] | None, model: str | None) -> None:
        self.index = index
        self.model = model
        self._lock = threading.Lock()
        self._encoder: SharedEncoder | None = None

    def __call__(self) -> KnowledgeBase:
        with self._lock:
            if self._encoder is None:
                self._encoder = SharedEncoder(resolve_model(self.model))
        # cast: the Protocol declares model_id and dim as plain attributes; here
        # they are read-only properties, since reading them loads the model
        encoder = cast(Encoder, self._encoder)
        return KnowledgeBase(index_dir(self.index), self._encoder.spec, encoder=encoder)
