"""One encoder shared by several threads, loaded on first use by whichever asks first."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence

import numpy as np

from kbsearch.embed import Encoder, load_encoder, load_judge
from kbsearch.models import ModelSpec
from kbsearch.runtime.cancel import checkpoint

BATCH_BOUND = frozenset({"onnx-int8"})
"""Backends whose vectors depend on which texts share a batch (int8
activations are quantized per batch): they are never given turns."""


class FairLock:
    """A lock handed to its waiters in the order they came: Python's own lock lets the
    thread that releases it take it again at once, so on busy cores a big encode's
    next turn would keep beating a waiting query to it."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._held = False
        self._waiters: deque[threading.Event] = deque()

    def __enter__(self) -> None:
        with self._guard:
            if not self._held:
                self._held = True
                return
            turn = threading.Event()
            self._waiters.append(turn)
        turn.wait()  # handed over by __exit__, held from then on

    def __exit__(self, *exc: object) -> None:
        with self._guard:
            if self._waiters:
                self._waiters.popleft().set()
            else:
                self._held = False


class SharedEncoder:
    """Loads the model on first use, once, whichever thread asks first, and
    encodes one batch at a time.

    A query takes milliseconds to embed; taking turns costs little and keeps
    the model's own state (tokenizer buffers, torch's thread pool) out of
    reach of concurrent calls from the TUI's gateways or a server's readers.

    With ``turn``, a call of more texts takes its turns ``turn`` texts at a
    time: a big check (500 claims take the default model 1.5 s on an idle
    core) lets each waiting query in between, and stops at a checkpoint
    between two turns. A model whose vectors depend on which texts share a batch
    (int8 activations) is given no turn: its vectors stay those of one call.
    """

    def __init__(
        self,
        spec: ModelSpec,
        inner: Encoder | None = None,
        load: Callable[[ModelSpec], Encoder] = load_encoder,
        *,
        turn: int | None = None,
    ) -> None:
        self.spec = spec
        self.turn = None if spec.backend in BATCH_BOUND else turn
        self._lock = threading.Lock()
        self._encoding = FairLock()
        self._inner = inner
        self._load = load  # a judge's loader says, when it fails, that it is the judge

    @classmethod
    def judge_of(cls, spec: ModelSpec, owner: str, inner: Encoder | None = None) -> SharedEncoder:
        """The judge model of ``owner``: a failed load says it is the judge (see ``load_judge``)."""
        return cls(spec, inner, load=lambda judge: load_judge(judge, owner))

    @property
    def ready(self) -> bool:
        """Loaded: an encode call will not wait for the model."""
        return self._inner is not None

    def _get(self) -> Encoder:
        with self._lock:
            if self._inner is None:
                self._inner = self._load(self.spec)
            return self._inner

    def unwrapped(self) -> Encoder:
        """The model itself, loaded: what names its build (``tokens.passage_disk``)."""
        return self._get()

    @property
    def model_id(self) -> str:
        return self._get().model_id

    @property
    def dim(self) -> int:
        return self._get().dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        encoder = self._get()
        turn = self.turn or len(texts)
        if len(texts) <= turn:
            with self._encoding:
                return encoder.encode(texts)
        parts = []
        for start in range(0, len(texts), turn):
            checkpoint()
            with self._encoding:
                parts.append(encoder.encode(texts[start : start + turn]))
        return np.concatenate(parts)
