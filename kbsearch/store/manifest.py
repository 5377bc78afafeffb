"""``manifest.json``: what built an index's vector cache, checked on every open.

Read and written by the cache in ``vectors.faiss`` (``vector_cache``) and by
a Milvus collection standing in for it (``remote_vectors``): each imports it
from here, and neither imports the other's module for it.
"""

from __future__ import annotations

import datetime as dt
from importlib import metadata
from pathlib import Path

from pydantic import BaseModel, ValidationError

MANIFEST_NAME = "manifest.json"
CACHE_FORMAT = 2
"""The vector file's layout: 2 is flat or HNSW with tombstones; 1 (no field)
was flat or IVF. A cache of another format is rebuilt, never read."""


class Manifest(BaseModel):
    """What built the vector cache, checked on every open."""

    format_version: int
    cache_format: int = 1
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
    vectors: str | None = None
    """Where the vectors are when not in ``vectors.faiss``: the index's
    ``--vectors`` choice (``milvus:PATH.db``, ``milvus://HOST:PORT``)."""
    collection: str | None = None
    """The Milvus collection, for ``vectors`` in Milvus."""


def read_manifest(root: Path) -> Manifest | None:
    try:
        return Manifest.model_validate_json((root / MANIFEST_NAME).read_bytes())
    except (OSError, ValidationError, ValueError):
        return None


def library_versions() -> dict[str, str]:
    versions = {}
    for name in ("kbsearch", "faiss-cpu", "numpy", "sentence-transformers"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "unknown"
    return versions
