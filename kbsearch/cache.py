"""The search cache: ``vectors.faiss`` and ``manifest.json``, derived from SQLite.

After each commit the writer replaces both files atomically (temp file,
fsync, rename), the vectors first. The manifest names the database
generation it was built from and the sha256 of the vector file, so a crash
between the two renames, or between the commit and the first one, leaves a
manifest that no longer matches: the cache is then rebuilt from SQLite, never
trusted. Nothing here decides what to do about a problem; ``Store`` does.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from importlib import metadata
from pathlib import Path

from pydantic import BaseModel, ValidationError

from kbsearch.errors import KbError
from kbsearch.schema import FORMAT_VERSION
from kbsearch.vector_index import VectorIndex, write_atomic

VECTORS_NAME = "vectors.faiss"
MANIFEST_NAME = "manifest.json"
TEMP_SUFFIX = ".tmp"


class Manifest(BaseModel):
    """What built the vector cache, checked on every open."""

    format_version: int
    model: str
    dim: int
    normalized: bool = True
    metric: str = "inner_product"
    index_type: str = "flat"
    count: int
    generation: int
    vectors_sha256: str
    libraries: dict[str, str]
    updated: dt.datetime


class CacheProblem(Exception):
    """Why the cache files can't be used as they are; the text says it in a few words."""


def read_manifest(root: Path) -> Manifest | None:
    try:
        return Manifest.model_validate_json((root / MANIFEST_NAME).read_bytes())
    except (OSError, ValidationError, ValueError):
        return None


def load_cache(root: Path, *, model: str, dim: int, generation: int, passages: int) -> VectorIndex:
    """The cached index, if it is exactly the one the database describes; else CacheProblem."""
    manifest = read_manifest(root)
    if manifest is None:
        path = root / MANIFEST_NAME
        raise CacheProblem("manifest is unreadable" if path.exists() else "manifest is missing")
    if manifest.generation != generation:
        raise CacheProblem(f"manifest is of generation {manifest.generation}, the database of {generation}")
    if (manifest.model, manifest.dim) != (model, dim):
        raise CacheProblem(
            f"manifest names model {manifest.model!r} ({manifest.dim}-d), the database {model!r} ({dim}-d)"
        )
    if manifest.count != passages:
        raise CacheProblem(f"manifest counts {manifest.count} vectors for {passages} passages")
    path = root / VECTORS_NAME
    try:
        before = path.stat()
        digest = _file_sha256(path)
    except FileNotFoundError:
        raise CacheProblem("vector file is missing") from None
    except OSError as err:
        raise CacheProblem(f"vector file is unreadable ({err.strerror})") from err
    if digest != manifest.vectors_sha256:
        raise CacheProblem("vector file does not match its manifest (corrupt or half written)")
    try:
        index = VectorIndex.read(path, dim)
    except KbError as err:  # hash matched, yet faiss refuses it: another faiss version
        raise CacheProblem(err.message) from err
    if _replaced(path, before):
        raise CacheProblem("vector file was replaced while it was read")
    if index.count != passages:
        raise CacheProblem(f"vector file holds {index.count} vectors for {passages} passages")
    return index


def _file_sha256(path: Path) -> str:
    # Streamed: hashing must not hold a second copy of a file of hundreds of MB.
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _replaced(path: Path, before: os.stat_result) -> bool:
    """A writer renamed a new file over ``path`` between the hash and the read."""
    try:
        after = path.stat()
    except OSError:
        return True
    return (after.st_ino, after.st_mtime_ns, after.st_size) != (before.st_ino, before.st_mtime_ns, before.st_size)


def write_cache(root: Path, index: VectorIndex, *, model: str, dim: int, generation: int) -> None:
    """Replace vectors.faiss, then manifest.json, each atomically."""
    digest = write_atomic(root / VECTORS_NAME, index.write)
    manifest = Manifest(
        format_version=FORMAT_VERSION,
        model=model,
        dim=dim,
        index_type=index.kind,
        count=index.count,
        generation=generation,
        vectors_sha256=digest,
        libraries=_library_versions(),
        updated=dt.datetime.now(dt.UTC),
    )
    write_atomic(root / MANIFEST_NAME, manifest.model_dump_json(indent=2).encode())


def leftover_temp_files(root: Path) -> list[Path]:
    """Temp files a killed writer left behind; harmless, the next write replaces them."""
    return [
        root / (name + TEMP_SUFFIX) for name in (VECTORS_NAME, MANIFEST_NAME) if (root / (name + TEMP_SUFFIX)).exists()
    ]


def _library_versions() -> dict[str, str]:
    versions = {}
    for name in ("kbsearch", "faiss-cpu", "numpy", "sentence-transformers"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "unknown"
    return versions
