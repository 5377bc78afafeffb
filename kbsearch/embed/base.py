"""What every encoder module shares: the two protocols, unit-length rows, the
dimension check and the libraries' quiet start.

Kept apart from ``kbsearch.embed``'s loaders so that the runtimes it loads
(``use``, ``hub``, ``tokens``, ...) import these without importing the
loaders that import them: no module of the package imports its own loader.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from kbsearch.errors import KbError
from kbsearch.models import ModelSpec


@runtime_checkable
class Encoder(Protocol):
    """What kbsearch needs from a model: unit-length float32 rows."""

    model_id: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class TokenEncoder(Protocol):
    """A model's contextual token vectors: per text, one unit-length float32 row
    per token of the text itself (no special or prompt tokens)."""

    model_id: str

    def count_tokens(self, texts: Sequence[str]) -> list[int]: ...

    def encode_tokens(self, texts: Sequence[str]) -> list[np.ndarray]: ...


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """Unit-length rows, so inner product is cosine similarity."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


def quiet_libraries() -> None:
    # Libraries log download and device chatter to stderr, and draw progress
    # bars there as they load weights ("Loading weights", "Writing model
    # shards"); the CLI owns stderr. Set before they are imported: both read
    # these once. A DEBUG level on the kbsearch logger (the CLI's -v) lets them.
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if logging.getLogger("kbsearch").isEnabledFor(logging.DEBUG):
        return
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


def check_dim(spec: ModelSpec, dim: int) -> None:
    if spec.dim is not None and spec.dim != dim:
        raise KbError(
            f"model {spec.name!r} gives {dim}-d vectors, models.txt says dim={spec.dim}",
            hint="fix the dim= option in models.txt",
        )
