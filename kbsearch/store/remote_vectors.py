"""An index whose search vectors live in Milvus: the collection as a derived cache.

SQLite stays the source of truth (records, text, FTS5, float32 vectors);
the collection is derived from it like ``vectors.faiss``. After each commit
the writer deletes the dropped vector ids and upserts the points of every
record it wrote, then stamps ``manifest.json`` with the generation the
collection now reflects.

A crash between the commit and that stamp leaves a stale stamp. Whoever
next holds the writer lock (the next write, or a reader that finds it free)
catches up: it compares every point's digest (its passage's content hash
and its scalar fields) in the collection with SQLite's and upserts or
deletes only the points that differ; upserts by id are idempotent, so a
replay is harmless. No vector is read from Milvus and none rebuilt.

Catching up reads SQLite through a connection of its own, outside any
reader's snapshot, and under the writer lock: no commit can land while it
compares, so it never undoes a newer write.
"""

from __future__ import annotations

import datetime as dt
import secrets
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from filelock import FileLock, Timeout

from kbsearch.errors import KbError
from kbsearch.settings import settings
from kbsearch.store.database import DB_NAME
from kbsearch.store.manifest import CACHE_FORMAT, Manifest, library_versions, read_manifest
from kbsearch.store.migrations import FORMAT_VERSION
from kbsearch.store.sql import VECTOR_ID, chunks, float32_rows, read_meta, select_in_chunks, vector_rowids, write_meta
from kbsearch.vector_index import IndexParams, VectorIndex, write_atomic
from kbsearch.vector_index.choice import VectorStore, parse_vector_store
from kbsearch.vector_index.milvus import MilvusBackend, collection_name, connect, digest, disconnect
from kbsearch.vector_index.predicate import PointFields

CHOICE_KEY = "vectors"
"""meta: where the index keeps its search vectors (``VectorStore.label``); absent: faiss."""
UID_KEY = "index_uid"
"""meta: a random name of this index, part of its collections' names."""
WRITER_LOCK = ".writer.lock"
"""``kbsearch.kb.writer_lock.LOCK_NAME``, which this layer cannot import; a test keeps them equal."""
RETRY_SECONDS = 0.5
_POINTS = (
    f"SELECT {VECTOR_ID}, p.content_hash, r.kind, r.instance, r.topic, r.date "
    "FROM passages p JOIN records r ON r.rowid = p.rowid"
)


def stored_choice(db: sqlite3.Connection) -> VectorStore | None:
    """The choice the index's first write recorded; None for a local (faiss) index."""
    value = read_meta(db, CHOICE_KEY)
    return parse_vector_store(value) if value else None


def record_choice(db: sqlite3.Connection, choice: VectorStore) -> None:
    """Inside the first write's transaction: the choice and the index's uid."""
    write_meta(db, CHOICE_KEY, choice.label)
    if read_meta(db, UID_KEY) is None:
        write_meta(db, UID_KEY, secrets.token_hex(6))


def require_choice(root: Path, kept: VectorStore | None, wanted: VectorStore) -> VectorStore | None:
    """``wanted`` when the index has made no choice yet (a first write records
    it); None when it is the choice made; else a ``KbError`` naming the fix."""
    if kept is None:
        if wanted.remote:  # reached before the first write, so a wrong address stores nothing
            disconnect(connect(wanted.uri(root), settings().milvus_token), wanted.uri(root))
        return wanted
    if kept != wanted:
        raise KbError(
            f"this index keeps its vectors in {kept.label}, not {wanted.label}: its first write chose",
            path=str(root),
            hint=f"leave --vectors out, or ingest into a new --index folder with --vectors {wanted.label}",
        )
    return None


class RemoteVectors:
    """The Milvus collection of one open store, for the model the index is bound to."""

    def __init__(self, root: Path, db: sqlite3.Connection, params: IndexParams, choice: VectorStore) -> None:
        self.root, self.db, self.params, self.choice = root, db, params, choice
        self.notes: list[str] = []
        self.read_only = False
        self._backend: MilvusBackend | None = None
        self._checked = -1

    # -- connecting -------------------------------------------------------------

    def backend(self, model: str, dim: int) -> MilvusBackend:
        name = collection_name(read_meta(self.db, UID_KEY) or "0", model)
        if self._backend is None or self._backend.collection != name:
            self.close()
            uri = self.choice.uri(self.root)
            client = connect(uri, settings().milvus_token)
            self._backend = MilvusBackend(dim, self.params, client=client, collection=name, uri=uri)
        return self._backend

    def close(self) -> None:
        if self._backend is not None:
            self._backend.close()
            self._backend = None

    def index(self, model: str, dim: int, generation: int) -> VectorIndex:
        """The collection, caught up first when its stamp is behind ``generation``."""
        backend = self.backend(model, dim)
        if generation != self._checked:
            self._follow(model, dim, generation)
            self._checked = generation
        return VectorIndex(dim, self.params, backend)

    def _follow(self, model: str, dim: int, generation: int) -> None:
        for attempt in range(2):
            if self.stamped() >= generation:
                return
            if not self.read_only and self._catch_up_if_free(model, dim):
                return
            if attempt == 0:  # a writer between its commit and its stamp: a moment later it is done
                time.sleep(RETRY_SECONDS)
        self.notes.append(
            f"the Milvus collection reflects generation {self.stamped()} of {generation}: "
            "records written since may be missing from search by meaning until the next write catches it up"
        )

    def _catch_up_if_free(self, model: str, dim: int) -> bool:
        try:
            with FileLock(str(self.root / WRITER_LOCK), timeout=0):
                self.catch_up(model, dim)
                return True
        except Timeout:
            return False

    # -- the manifest -----------------------------------------------------------

    def stamped(self) -> int:
        """The generation the collection reflects, by its manifest (-1: none)."""
        manifest = read_manifest(self.root)
        if manifest is None or manifest.index_type != MilvusBackend.kind or manifest.vectors != self.choice.label:
            return -1
        return manifest.generation

    def stamp(self, model: str, dim: int, generation: int, count: int) -> None:
        manifest = Manifest(
            format_version=FORMAT_VERSION,
            cache_format=CACHE_FORMAT,
            model=model,
            dim=dim,
            index_type=MilvusBackend.kind,
            count=count,
            generation=generation,
            vectors_sha256="",
            libraries=library_versions(),
            updated=dt.datetime.now(dt.UTC),
            vectors=self.choice.label,
            collection=self.backend(model, dim).collection,
        )
        write_atomic(self.root / "manifest.json", manifest.model_dump_json(indent=2).encode())

    # -- writing ----------------------------------------------------------------

    def after_write(self, drop: np.ndarray, rowids: np.ndarray, model: str, dim: int, before: int) -> None:
        """After a commit (under the writer lock): the difference this write made,
        or, when the stamp was already behind the generation it started from,
        the whole difference from SQLite."""
        if self.stamped() != before:
            self.catch_up(model, dim)
            return
        backend = self.backend(model, dim)
        backend.remove(drop)  # first: an edited record's passages come back under the same ids
        for part in chunks(rowids.tolist(), 5_000):
            backend.upsert(*self._points(self.db, list(part), model, dim))
        backend.settle()
        self._stamp_now(self.db, model, dim)

    def catch_up(self, model: str, dim: int) -> tuple[int, int]:
        """Upsert and delete what differs from SQLite, then stamp; (upserted, deleted)."""
        db = _own_connection(self.root)
        try:
            backend = self.backend(model, dim)
            ids, digests = _arrays((vid, digest(PointFields.of(*row[1:]), row[0])) for vid, *row in db.execute(_POINTS))
            held_ids, held = _arrays(backend.digests())
            stale = held_ids[~np.isin(held_ids, ids)]
            position = np.searchsorted(held_ids, ids)
            known = position < len(held_ids)
            known[known] = held_ids[position[known]] == ids[known]
            same = np.zeros(len(ids), dtype=bool)
            same[known] = held[position[known]] == digests[known]
            wanted = ids[~same]
            backend.remove(stale)
            rowids = np.unique(vector_rowids(wanted))
            for part in chunks(rowids.tolist(), 5_000):
                vids, vectors, fields, hashes = self._points(db, list(part), model, dim)
                keep = np.isin(vids, wanted)
                backend.upsert(
                    vids[keep],
                    vectors[keep],
                    [f for f, k in zip(fields, keep, strict=True) if k],
                    [h for h, k in zip(hashes, keep, strict=True) if k],
                )
            backend.settle()
            self._stamp_now(db, model, dim)
            return len(wanted), len(stale)
        finally:
            db.close()

    def rebuild(self, model: str, dim: int) -> VectorIndex:
        """A new collection for ``model`` from every stored vector (reindex);
        the collection it replaces is dropped once the new one is whole."""
        old, self._backend = self._backend, None
        backend = self.backend(model, dim)
        backend.reset()
        rowids = [r[0] for r in self.db.execute("SELECT rowid FROM records ORDER BY rowid")]
        for part in chunks(rowids, 5_000):
            backend.upsert(*self._points(self.db, list(part), model, dim))
        backend.settle()
        self._stamp_now(self.db, model, dim)
        if old is not None:
            if old.collection != backend.collection:
                old.drop()
            old.close()
        return VectorIndex(dim, self.params, backend)

    def _stamp_now(self, db: sqlite3.Connection, model: str, dim: int) -> None:
        generation = int(read_meta(db, "generation") or 0)
        count = int(db.execute("SELECT count(*) FROM passages").fetchone()[0])
        self.stamp(model, dim, generation, count)
        self._checked = generation

    @staticmethod
    def _points(
        db: sqlite3.Connection, rowids: list[int], model: str, dim: int
    ) -> tuple[np.ndarray, np.ndarray, list[PointFields], list[str]]:
        """(vector ids, vectors, fields, content hashes) of the given records' passages."""
        rows = list(
            select_in_chunks(
                db,
                f"SELECT {VECTOR_ID}, v.vector, p.content_hash, r.kind, r.instance, r.topic, r.date "
                "FROM passages p CROSS JOIN vectors v ON v.content_hash = p.content_hash AND v.model = ? "
                "JOIN records r ON r.rowid = p.rowid WHERE p.rowid IN ({marks})",
                rowids,
                before=[model],
            )
        )
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        return (
            ids,
            float32_rows((r[1] for r in rows), dim),
            [PointFields.of(*r[3:]) for r in rows],
            [r[2] for r in rows],
        )


def _own_connection(root: Path) -> sqlite3.Connection:
    db = sqlite3.connect(f"{(root / DB_NAME).resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    db.execute("PRAGMA query_only = 1")
    return db


def _arrays(pairs: Iterator[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """(ids, values), sorted by id."""
    both = np.array(list(pairs), dtype=np.int64).reshape(-1, 2)
    order = np.argsort(both[:, 0], kind="stable")
    return both[order, 0], both[order, 1]
