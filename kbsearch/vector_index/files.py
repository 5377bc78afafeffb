"""Atomic file replacement: a crash leaves the old file or the new one, never half of one."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, overload

T = TypeVar("T")


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@overload
def write_atomic(path: Path, data: bytes | memoryview) -> None: ...
@overload
def write_atomic(path: Path, data: Callable[[Path], T]) -> T: ...
def write_atomic(path: Path, data: bytes | memoryview | Callable[[Path], T]) -> T | None:
    """Write a temp file, fsync, rename over the old one. ``data`` is the
    bytes, or a function that writes the temp file itself and returns a value
    passed back here (a large faiss index streams to disk and returns its checksum)."""
    tmp = path.with_name(path.name + ".tmp")
    result = None
    if callable(data):
        result = data(tmp)
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
    else:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)
    return result
