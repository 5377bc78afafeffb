"""Models through sentence-transformers: a hub id or a local folder in
models.txt, and multilingual-e5-small's ``backend=torch``.

This is how a user adds any model, and the only place kbsearch imports
sentence-transformers (and with it transformers and torch): a few seconds
and a few hundred MB that the default models, on their own runtimes, never
pay. Imported by ``kbsearch.embed`` only when such a model loads.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import kbsearch.runtime.timings as timings
from kbsearch.embed.base import check_dim, normalize_rows
from kbsearch.errors import KbError
from kbsearch.models import ModelSpec, models_file

HUB_HOST = "huggingface.co"
ST_PIP = "pip install sentence-transformers"


class SentenceTransformerEncoder:
    """Any model behind ``SentenceTransformer``, with its prompt on every input."""

    def __init__(self, spec: ModelSpec, model: Any, *, batch: int | None = None) -> None:
        self.model_id = spec.name
        self.prompt = spec.prompt
        self.batch = batch or spec.batch
        self._model = model
        dimension = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self.dim = int(dimension())
        check_dim(spec, self.dim)

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


class SentenceTransformerTokens:
    """Token vectors from a ``SentenceTransformer`` whose first module is a
    transformer (e5 with ``backend=torch``, any hub model); the prompt is read
    but its tokens dropped."""

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


def encoder(spec: ModelSpec, model: Any = None) -> SentenceTransformerEncoder:
    """A hub or folder model; ``model``, when given, is the loaded ``SentenceTransformer``
    (e5's torch backend loads its own: ``e5_torch.encoder``)."""
    return SentenceTransformerEncoder(spec, model if model is not None else sentence_transformers_model(spec))


def token_encoder(spec: ModelSpec, model: Any = None) -> SentenceTransformerTokens:
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # the CLI owns stderr
    return SentenceTransformerTokens(spec, model if model is not None else sentence_transformers_model(spec))


def import_sentence_transformer() -> Any:
    """The ``SentenceTransformer`` class, its import timed as its own phase
    (torch, transformers and scipy: seconds)."""
    with timings.phase("model import"):
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as err:
            raise KbError(
                "this model runs through sentence-transformers, which is not installed",
                hint=f"{ST_PIP} (it brings torch; install torch's CPU wheel first to avoid a CUDA build)",
            ) from err
    return SentenceTransformer


def sentence_transformers_model(spec: ModelSpec) -> Any:
    problem = spec.folder_problem()
    if problem is not None:  # at once: neither torch's import nor the hub's timeout can help
        raise KbError(
            f"model {spec.name!r}: {problem}",
            path=str(models_file()),
            line=spec.line or None,
            hint="point the line at the folder of a downloaded sentence-transformers model "
            "(an absolute path, ./… or ~/…), or at a hub id such as intfloat/multilingual-e5-small",
        )
    said_dim = folder_dim(spec.folder) if spec.folder is not None else None
    if said_dim is not None:  # from the folder's config files, before seconds of torch
        check_dim(spec, said_dim)
    if spec.folder is None and not hub_cached(spec.source) and not hub_reachable():
        raise unreachable(spec)
    SentenceTransformer = import_sentence_transformer()
    try:
        # A cached or local model must load without touching the network.
        return SentenceTransformer(spec.source, device="cpu", local_files_only=True, trust_remote_code=False)
    except (OSError, ValueError):
        pass
    if not hub_reachable():
        raise unreachable(spec)
    try:
        return SentenceTransformer(spec.source, device="cpu", trust_remote_code=False)
    except OSError as err:
        raise KbError(
            f"model {spec.name!r} ({spec.source}) could not be loaded: {err}", hint="check the model id in models.txt"
        ) from err


def hub_reachable(timeout: float = 3.0) -> bool:
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


def unreachable(spec: ModelSpec) -> KbError:
    return KbError(
        f"model {spec.name!r} ({spec.source}) is not cached and the Hugging Face hub is unreachable from this machine",
        hint="use an offline model such as use-multilingual-v3, or download it where "
        "the hub is reachable and point models.txt at the local folder",
    )


def hub_cached(source: str) -> bool:
    """Whether the hub's cache may hold ``source`` (without importing the hub client):
    True when unsure, so that only a certain miss is said before torch loads."""
    if os.environ.get("SENTENCE_TRANSFORMERS_HOME"):
        return True  # a cache folder of its own: let sentence-transformers look
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "huggingface"
    )
    hub = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE") or os.path.join(home, "hub")
    names = [source] if "/" in source else [source, f"sentence-transformers/{source}"]
    return any(os.path.isdir(os.path.join(hub, "models--" + name.replace("/", "--"))) for name in names)


def folder_dim(folder: Path) -> int | None:
    """The dimension a sentence-transformers folder's config files promise (the last
    Dense layer's, else its one-mode pooling's); None when they do not say for sure."""
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        dim = None
        for module in modules:
            kind = str(module.get("type", "")).rsplit(".", 1)[-1]
            if kind in ("Transformer", "Normalize"):
                continue
            config = json.loads((folder / module.get("path", "") / "config.json").read_text(encoding="utf-8"))
            if kind == "Dense":
                dim = int(config["out_features"])
            elif kind == "Pooling":
                dim = _pooled_dim(config)
            else:
                return None  # a module whose output kbsearch does not know
            if dim is None:
                return None
        return dim
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _pooled_dim(config: dict[str, Any]) -> int | None:
    width = config.get("embedding_dimension", config.get("word_embedding_dimension"))
    mode = config.get("pooling_mode")
    if mode is None:  # the older layout: one flag per mode
        modes = [k for k, v in config.items() if k.startswith("pooling_mode_") and v is True]
    else:
        modes = [mode] if isinstance(mode, str) else list(mode)
    return int(width) if width is not None and len(modes) == 1 else None
