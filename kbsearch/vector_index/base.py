"""What every vector backend does: ids in, (scores, ids) out.

``VectorBackend`` is the seam: add (an upsert by id), remove, search with a
filter (allowed ids, or a ``Predicate`` for an engine that keeps scalar
fields), and the stored vectors. ``FaissBackend`` adds what the local
backends share: a faiss file on disk and a copy in memory.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import faiss
import numpy as np

from kbsearch.vector_index.params import IndexParams
from kbsearch.vector_index.predicate import PointFields, Predicate


class VectorBackend(ABC):
    """Inner-product search over unit vectors keyed by int64 ids (the store's
    vector ids). Vectors are unit length, so the inner product is the cosine."""

    kind: ClassVar[str]
    """``flat`` (exact), ``hnsw`` (approximate) or ``milvus``: the manifest's ``index_type``."""
    takes_predicates: ClassVar[bool] = False
    """Whether ``search`` applies a ``Predicate`` over each point's scalar
    fields (a remote engine); the local backends are given allowed ids."""

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
    def add(self, ids: np.ndarray, vectors: np.ndarray, fields: Sequence[PointFields] | None = None) -> None:
        """Store these vectors under these ids. A remote engine upserts (an id
        held is replaced); the store removes an id from a local backend before
        adding it again. ``fields``, one per id, are kept by an engine that
        filters on them (``takes_predicates``) and ignored by the others."""

    @abstractmethod
    def remove(self, ids: np.ndarray) -> None:
        """Forget these ids; ids not held are ignored."""

    @abstractmethod
    def search(
        self, queries: np.ndarray, k: int, allowed: np.ndarray | None, where: Predicate | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-k (scores, ids) per query; ``allowed`` (or ``where``, for a backend
        that ``takes_predicates``) restricts the candidates inside the search.
        Rows are padded with id -1 when fewer are found."""

    @abstractmethod
    def vectors(self, ids: np.ndarray) -> np.ndarray:
        """The stored vectors of live ids (as stored: possibly quantized)."""

    def copy(self) -> VectorBackend:
        """A copy for readers to search while this one changes; a remote
        collection is shared by all of them, so it is its own copy."""
        return self

    def exact_among(self, queries: np.ndarray, k: int, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Score every allowed vector: for filters that keep few."""
        allowed = np.asarray(allowed, dtype=np.int64)
        scores = queries @ self.vectors(allowed).T
        top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(scores, top, axis=1).astype(np.float32), allowed[top]


class FaissBackend(VectorBackend):
    """A backend held in memory as one faiss index, saved as ``vectors.faiss``."""

    @abstractmethod
    def faiss_index(self) -> faiss.Index:
        """The object written to the cache file."""

    @classmethod
    @abstractmethod
    def from_faiss(cls, raw: faiss.Index, dim: int, params: IndexParams) -> FaissBackend | None:
        """This backend around an index read from a file, or None if the file holds another kind."""

    def copy(self) -> FaissBackend:
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


def empty_result(queries: int) -> tuple[np.ndarray, np.ndarray]:
    empty = np.zeros((queries, 0))
    return empty.astype(np.float32), empty.astype(np.int64)
