"""The search cache: ``vectors.faiss`` and ``manifest.json``, derived from SQLite.

After each commit the writer replaces both files atomically (temp file,
fsync, rename), the vectors first. The manifest names the database
generation it was built from and the sha256 of the vector file, so a crash
between the two renames, or between the commit and the first one, leaves a
manifest that no longer matches: the cache is then rebuilt from SQLite, never
trusted.

``load_cache`` and ``write_cache`` handle the files; ``VectorCache`` is the
lifecycle of one open store's index: loaded for the database's generation,
rebuilt from the stored vectors when the files do not match, updated in
place after a write and saved again.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from kbsearch.errors import KbError
from kbsearch.store.index_share import IndexShare
from kbsearch.store.manifest import CACHE_FORMAT, MANIFEST_NAME, Manifest, library_versions, read_manifest
from kbsearch.store.migrations import FORMAT_VERSION
from kbsearch.store.remote_vectors import RemoteVectors, stored_choice
from kbsearch.store.sql import VECTOR_ID, float32_rows, read_meta, select_in_chunks
from kbsearch.vector_index import IndexParams, VectorIndex, write_atomic
from kbsearch.vector_index.choice import VectorStore

VECTORS_NAME = "vectors.faiss"
TEMP_SUFFIX = ".tmp"
RETRY_SECONDS = 0.5


class CacheProblem(Exception):
    """Why the cache files can't be used as they are; the text says it in a few words."""


def load_cache(
    root: Path, *, model: str, dim: int, generation: int, passages: int, params: IndexParams | None = None
) -> VectorIndex:
    """The cached index, if it is exactly the one the database describes; else CacheProblem."""
    manifest = read_manifest(root)
    if manifest is None:
        path = root / MANIFEST_NAME
        raise CacheProblem("manifest is unreadable" if path.exists() else "manifest is missing")
    if manifest.cache_format != CACHE_FORMAT:
        raise CacheProblem(f"vector cache is of format {manifest.cache_format}, this kbsearch reads {CACHE_FORMAT}")
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
        index = VectorIndex.read(path, dim, params)
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
        cache_format=CACHE_FORMAT,
        model=model,
        dim=dim,
        index_type=index.kind,
        count=index.count,
        generation=generation,
        vectors_sha256=digest,
        libraries=library_versions(),
        updated=dt.datetime.now(dt.UTC),
    )
    write_atomic(root / MANIFEST_NAME, manifest.model_dump_json(indent=2).encode())


def leftover_temp_files(root: Path) -> list[Path]:
    """Temp files a killed writer left behind; harmless, the next write replaces them."""
    return [
        root / (name + TEMP_SUFFIX) for name in (VECTORS_NAME, MANIFEST_NAME) if (root / (name + TEMP_SUFFIX)).exists()
    ]


class VectorCache:
    """The vector index of one open store, for the database's current generation.

    A long-lived store (the TUI) follows other processes' writes: a new
    generation means a new index.
    """

    def __init__(self, root: Path, db: sqlite3.Connection, params: IndexParams | None = None) -> None:
        self.root = root
        self.db = db
        self.params = params or IndexParams()
        self.notes: list[str] = []
        """Cache writes that failed; the data is safe in SQLite."""
        self._index: VectorIndex | None = None
        self._generation = -1
        self.rebuilt: str | None = None
        """Why the index in use was rebuilt from the database, if it was."""
        self.rebuilt_saved = False
        self.shared: IndexShare | None = None
        """Where this store gets a generation's index, and gives the one its own
        write made: a server's threads share one."""
        self.read_only = False
        self.wanted: VectorStore | None = None
        """The ``--vectors`` a first write was given, recorded by its transaction."""
        self._remote: RemoteVectors | None = None

    @property
    def remote(self) -> RemoteVectors | None:
        """The Milvus side, when the index keeps its vectors there (``remote_vectors``)."""
        choice = stored_choice(self.db)
        if choice is None:
            return None
        if self._remote is None or self._remote.choice != choice:
            self.close()
            self._remote = RemoteVectors(self.root, self.db, self.params, choice)
            self._remote.read_only, self._remote.notes = self.read_only, self.notes
        return self._remote

    @property
    def choice(self) -> VectorStore | None:
        """Where the index keeps its vectors; None before its first write."""
        choice = stored_choice(self.db)
        if choice is None and read_meta(self.db, "model") is not None:
            return VectorStore()
        return choice

    def close(self) -> None:
        if self._remote is not None:
            self._remote.close()
            self._remote = None

    def _meta(self) -> tuple[str | None, int | None, int]:
        dim = read_meta(self.db, "dim")
        return read_meta(self.db, "model"), int(dim) if dim else None, int(read_meta(self.db, "generation") or 0)

    @property
    def index(self) -> VectorIndex:
        """The index for the current generation, loaded or rebuilt when needed."""
        model, dim, generation = self._meta()
        remote = self.remote
        if remote is not None and model is not None and dim is not None:
            if self._index is None or self._generation != generation:
                self._index, self._generation = remote.index(model, dim, generation), generation
            return self._index
        if self._index is None or self._generation != generation:
            load = lambda g: self._load_or_rebuild(model, dim, g)  # noqa: E731
            self._index = self.shared.get(generation, load) if self.shared else load(generation)
            self._generation = generation
        return self._index

    def _load_or_rebuild(self, model: str | None, dim: int | None, generation: int) -> VectorIndex:
        if model is None or dim is None:
            return VectorIndex(dim or 1, self.params)
        passages = int(self.db.execute("SELECT count(*) FROM passages").fetchone()[0])
        why = ""
        for attempt in range(2):
            try:
                return load_cache(
                    self.root, model=model, dim=dim, generation=generation, passages=passages, params=self.params
                )
            except CacheProblem as problem:
                why = str(problem)
            # A writer or a compaction may be between its two renames: a moment
            # later the files agree, and a rebuild (minutes at a million vectors) is spared.
            if attempt == 0 and (self.root / MANIFEST_NAME).exists():
                time.sleep(RETRY_SECONDS)
        self.rebuilt, self.rebuilt_saved = why, False
        return self.from_database(model, dim)

    def needs_compaction(self) -> bool:
        """Whether the index in memory (if one is loaded) has tombstones past
        their share or could be exact again; see ``kbsearch.store.compaction``."""
        return self._index is not None and self._index.needs_compaction

    def repair(self) -> None:
        """Rewrite a missing, stale or corrupt cache; for writers, under the lock."""
        remote, (model, dim, generation) = self.remote, self._meta()
        if remote is not None:
            if model is not None and dim is not None and remote.stamped() < generation:
                remote.catch_up(model, dim)  # the caller holds the writer lock
            return
        _ = self.index  # loads the cache, or rebuilds it and records why
        if self.rebuilt is not None and not self.rebuilt_saved:
            self.save()

    def replace(self, index: VectorIndex) -> None:
        """Use ``index`` for the generation just committed, and save it."""
        self._index, self._generation = index, self._meta()[2]
        if self.remote is not None:
            return  # stamped when the collection was written
        if self.shared is not None:
            self.shared.publish(self._generation, index)
        self.save()

    def save(self) -> None:
        """Write the cache files for the committed state.

        The data is already safe in SQLite, so a failure here (disk full) is
        a note, not an error: the next open rebuilds the cache.
        """
        model, dim, generation = self._meta()
        if self._index is None or model is None or dim is None:
            return
        try:
            write_cache(self.root, self._index, model=model, dim=dim, generation=generation)
        except OSError as err:
            self.notes.append(
                f"the records are saved, but the vector cache could not be written "
                f"({err.strerror}); the next command rebuilds it from the database"
            )
            return
        self.rebuilt_saved = True

    def from_database(self, model: str, dim: int) -> VectorIndex:
        """An index of every passage's stored ``model`` vector; embeds nothing.
        In Milvus: a new collection of them (a reindex)."""
        remote = self.remote
        if remote is not None:
            return remote.rebuild(model, dim)
        passages = int(self.db.execute("SELECT count(*) FROM passages").fetchone()[0])
        stored = int(
            self.db.execute(
                "SELECT count(*) FROM passages p JOIN vectors v ON v.content_hash = p.content_hash AND v.model = ?",
                (model,),
            ).fetchone()[0]
        )
        if stored != passages:
            raise KbError(
                f"{passages - stored} passages have no {model!r} vector", hint=f"run 'kbsearch reindex --model {model}'"
            )
        # Streamed in chunks: a list of every row plus a joined copy would
        # hold the vectors three times over at 100k records.
        return VectorIndex.from_chunks(
            dim,
            passages,
            self._vector_chunks(model, dim),
            lambda size: self._vector_sample(model, dim, size),
            self.params,
        )

    def _vector_chunks(self, model: str, dim: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        cursor = self.db.execute(
            f"SELECT {VECTOR_ID}, v.vector FROM passages p JOIN vectors v "
            "ON v.content_hash = p.content_hash AND v.model = ? ORDER BY 1",
            (model,),
        )
        while rows := cursor.fetchmany(5_000):
            yield np.array([r[0] for r in rows], dtype=np.int64), float32_rows((r[1] for r in rows), dim)

    def _vector_sample(self, model: str, dim: int, size: int) -> np.ndarray:
        """``size`` stored vectors picked at random (a fixed seed), to train the quantizer."""
        hashes = [
            r[0]
            for r in self.db.execute(
                "SELECT v.content_hash FROM vectors v WHERE v.model = ? AND v.content_hash IN "
                "(SELECT content_hash FROM passages) ORDER BY 1",
                (model,),
            )
        ]
        rng = np.random.default_rng(0)
        picked = sorted(rng.choice(len(hashes), min(size, len(hashes)), replace=False).tolist())
        rows = select_in_chunks(
            self.db,
            "SELECT vector FROM vectors WHERE model = ? AND content_hash IN ({marks})",
            [hashes[i] for i in picked],
            before=[model],
        )
        return float32_rows((r[0] for r in rows), dim)

    def passage_vectors(self, rowids: list[int], model: str, dim: int) -> tuple[np.ndarray, np.ndarray]:
        """(vector ids, vectors) of the given records' passages, from SQLite."""
        pairs = list(
            select_in_chunks(
                self.db,
                # CROSS JOIN fixes the loop order: the given records' passages
                # first, then each one's vector by primary key. Left to itself
                # SQLite walks every vector of the model and looks each up.
                f"SELECT {VECTOR_ID}, v.vector FROM passages p CROSS JOIN vectors v "
                "ON v.content_hash = p.content_hash AND v.model = ? WHERE p.rowid IN ({marks})",
                rowids,
                before=[model],
            )
        )
        return np.array([p[0] for p in pairs], dtype=np.int64), float32_rows((p[1] for p in pairs), dim)
