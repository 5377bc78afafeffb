"""What every vector backend does: ids in, (scores, ids) out, a faiss file on disk."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from pathlib import Path
from typing import ClassVar

import faiss
import numpy as np

from kbsearch.vector_index.params import IndexParams


class VectorBackend(ABC):
    """Inner-product search over unit vectors keyed by int64 ids (the store's
    vector ids). Vectors are unit length, so the inner product is the cosine."""

    kind: ClassVar[str]
    """``flat`` (exact) or ``hnsw`` (approximate): the manifest's ``index_type``."""

    def __init__(self, dim: int, params: IndexParams) -> None:
        self.dim = dim
        self.params = params

    @property
    @abstractmethod
    def count(self) -> int:
        """Live vectors (deleted ones not counted)."""

    @property
    def tombstones(self) -> int:
        """Deleted vectors still held, skipped by every search."""
        return 0

    @abstractmethod
    def ids(self) -> np.ndarray:
        """The live ids, in storage order."""

    @abstractmethod
    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None: ...

    @abstractmethod
    def remove(self, ids: np.ndarray) -> None:
        """Forget these ids; ids not held are ignored."""

    @abstractmethod
    def search(self, queries: np.ndarray, k: int, allowed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Top-k (scores, ids) per query; ``allowed`` restricts the candidates
        inside the search. Rows are padded with id -1 when fewer are found."""

    @abstractmethod
    def vectors(self, ids: np.ndarray) -> np.ndarray:
        """The stored vectors of live ids (as stored: possibly quantized)."""

    @abstractmethod
    def faiss_index(self) -> faiss.Index:
        """The object written to the cache file."""

    @classmethod
    @abstractmethod
    def from_faiss(cls, raw: faiss.Index, dim: int, params: IndexParams) -> VectorBackend | None:
        """This backend around an index read from a file, or None if the file holds another kind."""

    def copy(self) -> VectorBackend:
        """An independent copy in memory: readers search it while this one changes."""
        clone = type(self).from_faiss(faiss.clone_index(self.faiss_index()), self.dim, self.params)
        assert clone is not None  # a clone is of its original's kind
        return clone

    def write(self, path: Path) -> str:
        """Write the faiss file to ``path`` as faiss streams it, with no image
        in memory, and return its sha256, computed on the way."""
        digest = hashlib.sha256()
        with open(path, "wb") as handle:

            def sink(chunk: bytes) -> None:
                handle.write(chunk)
                digest.update(chunk)

            writer = faiss.PyCallbackIOWriter(sink)  # type: ignore[attr-defined]  # not in the stubs
            faiss.write_index(self.faiss_index(), writer)
            del writer  # flushes its last buffer into ``sink``
        return digest.hexdigest()

    def exact_among(self, queries: np.ndarray, k: int, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Score every allowed vector: for filters that keep few."""
        allowed = np.asarray(allowed, dtype=np.int64)
        scores = queries @ self.vectors(allowed).T
        top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(scores, top, axis=1).astype(np.float32), allowed[top]


def empty_result(queries: int) -> tuple[np.ndarray, np.ndarray]:
    empty = np.zeros((queries, 0))
    return empty.astype(np.float32), empty.astype(np.int64)
