"""The on-disk knowledge base: SQLite for records and vectors, FAISS for search.

SQLite is the source of truth. It holds every record, every vector (keyed by
model and content hash, so unchanged text is never embedded twice) and a
generation counter bumped by each write transaction. ``vectors.faiss`` and
``manifest.json`` are a derived search cache stamped with the generation they
were built from (see ``kbsearch.cache``). A crash between the SQLite commit and
the cache write leaves a stale stamp, and the next open rebuilds the cache from
SQLite without embedding anything.

Readers wrap each query in ``snapshot()``: one SQLite read transaction, so the
records they fetch and the generation their vector index was checked against
are the same state, whatever a writer commits meanwhile.

A record has several passages (title, whole text, each claim; see
``Record.passages``), each with its own vector. A FAISS id packs the record's
rowid and the passage number as ``rowid * MAX_PASSAGES + idx``; a record's
score is the best score of its passages.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel

from kbsearch import lexical
from kbsearch.cache import (
    MANIFEST_NAME,
    VECTORS_NAME,
    CacheProblem,
    Manifest,
    load_cache,
    read_manifest,
    write_cache,
)
from kbsearch.database import DB_NAME, connect, read_only_error, writable, write_error
from kbsearch.errors import KbError
from kbsearch.records import MAX_PASSAGES, IdMention, Kind, Record, text_hash
from kbsearch.schema import migrate
from kbsearch.vector_index import VectorIndex

__all__ = ["DB_NAME", "MANIFEST_NAME", "VECTORS_NAME", "ChangeSet", "Manifest", "SearchFilter", "Store"]
_VID = f"(p.rowid * {MAX_PASSAGES} + p.idx)"
# Passages fetched per wanted record before grouping; doubled until k records are found.
_OVERFETCH = 4


class SearchFilter(BaseModel):
    """Restrictions applied inside the vector and lexical searches, before the top-k cut."""

    kinds: list[Kind] = []
    instance: str | None = None
    topic: str | None = None
    since: dt.date | None = None
    until: dt.date | None = None
    section: str | None = None
    exclude_sources: list[str] = []
    """Files whose records are left out (a file is never checked against itself)."""
    exclude_ids: list[str] = []

    def is_empty(self) -> bool:
        return self == SearchFilter()


@dataclass
class ChangeSet:
    """One write transaction's worth of changes."""

    upserts: list[Record] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    """Record id → the file it was read from (its ``source`` may name an upstream origin)."""
    deletes: list[str] = field(default_factory=list)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    vector_batches: Iterable[dict[str, np.ndarray]] = ()
    """More vectors, produced while the transaction runs (ingest embeds batch
    by batch into it, so 100k new vectors are never all in memory)."""
    dim: int | None = None
    """The vectors' dimension, needed up front when they come in batches."""
    mentions: dict[str, list[IdMention]] = field(default_factory=dict)


class Store:
    """Open with ``Store.open(dir, model=...)``; refuses an index of another model."""

    def __init__(self, root: Path, db: sqlite3.Connection, *, read_only: bool = False) -> None:
        self.root = root
        self.db = db
        self.read_only = read_only
        self._notes: list[str] = []
        self._index: VectorIndex | None = None
        self._allowed_cache: tuple[tuple[int, str], np.ndarray] | None = None
        self._index_generation = -1
        self._rebuilt: str | None = None
        """Why the cache was rebuilt from the database, if it was."""
        self._rebuilt_saved = False

    # -- opening -------------------------------------------------------------

    @classmethod
    def open(cls, root: Path, *, model: str | None = None, create: bool = False) -> Store:
        """A folder this process can't write is opened read-only, or refused with ``create``."""
        db_path = root / DB_NAME
        if not db_path.exists() and not create:
            raise KbError(
                f"no index at {root}",
                hint="build one with 'kbsearch ingest PATH', or point --index / KBSEARCH_INDEX at one",
            )
        read_only = not writable(root)
        if read_only and create:
            raise read_only_error(root)
        try:
            if not read_only:
                root.mkdir(parents=True, exist_ok=True)
            db = connect(root, read_only=read_only)
            migrate(db, read_only=read_only)
        except sqlite3.OperationalError as err:
            raise write_error(err, root) from err
        except sqlite3.DatabaseError as err:
            raise KbError(
                f"the index database is unreadable: {err}",
                path=str(db_path),
                hint="restore it from a backup, or delete the index folder and ingest again",
            ) from err
        except OSError as err:
            raise KbError(
                f"cannot open the index: {err.strerror}", path=str(root), hint="check the folder's permissions"
            ) from err
        store = cls(root, db, read_only=read_only)
        if model is not None:
            store.require_model(model)
        return store

    @property
    def notes(self) -> list[str]:
        """Things worth telling the user that are not errors."""
        notes = list(self._notes)
        if self._rebuilt is not None:
            done = "and rewrote it" if self._rebuilt_saved else "in memory ('kbsearch reindex' rewrites it)"
            notes.insert(0, f"rebuilt the vector cache from the database {done}: {self._rebuilt}")
        return notes

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One consistent view of the database for a whole read.

        In WAL mode a read transaction never blocks the writer; it just keeps
        seeing the state it started with.
        """
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("ROLLBACK")

    def close(self) -> None:
        self.db.close()

    def require_model(self, model: str) -> None:
        built_with = self.model
        if built_with is not None and built_with != model and self.count() > 0:
            raise KbError(
                f"the index at {self.root} was built with model {built_with!r}, not {model!r}",
                hint=f"run 'kbsearch reindex --model {model}' to switch it, or pass --model {built_with}",
            )

    # -- metadata ------------------------------------------------------------

    def _meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    @property
    def model(self) -> str | None:
        return self._meta("model")

    @property
    def dim(self) -> int | None:
        value = self._meta("dim")
        return int(value) if value else None

    @property
    def generation(self) -> int:
        return int(self._meta("generation") or 0)

    @property
    def last_ingest(self) -> str | None:
        return self._meta("last_ingest")

    def count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM records").fetchone()[0])

    def passage_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM passages").fetchone()[0])

    def counts_by_kind(self) -> dict[str, int]:
        counts = {kind.value: 0 for kind in Kind}
        for kind, n in self.db.execute("SELECT kind, count(*) FROM records GROUP BY kind"):
            counts[kind] = n
        return counts

    def counts_by(self, column: str) -> dict[str, int]:
        if column not in {"instance", "topic"}:
            raise ValueError(column)
        rows = self.db.execute(f"SELECT coalesce({column}, '-'), count(*) FROM records GROUP BY 1")
        return dict(sorted(rows))

    # -- reading records -----------------------------------------------------

    def get(self, record_id: str) -> Record | None:
        row = self.db.execute("SELECT data FROM records WHERE id = ?", (record_id,)).fetchone()
        return load_record(row[0]) if row else None

    def by_rowids(self, rowids: Iterable[int]) -> dict[int, Record]:
        wanted = [int(r) for r in rowids]
        found: dict[int, Record] = {}
        for chunk in _chunks(wanted, 500):
            marks = ",".join("?" * len(chunk))
            for rowid, data in self.db.execute(f"SELECT rowid, data FROM records WHERE rowid IN ({marks})", chunk):
                found[rowid] = load_record(data)
        return found

    def stored_by_file(self, file: str) -> dict[str, str]:
        """Record id → stored JSON for every record read from ``file``."""
        rows = self.db.execute("SELECT id, data FROM records WHERE file = ?", (file,))
        return {rid: data for rid, data in rows}

    def files_of(self, rowids: list[int]) -> dict[int, str | None]:
        found: dict[int, str | None] = {}
        for chunk in _chunks(rowids, 500):
            marks = ",".join("?" * len(chunk))
            found.update(self.db.execute(f"SELECT rowid, file FROM records WHERE rowid IN ({marks})", chunk))
        return found

    def files(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT file FROM records WHERE file IS NOT NULL")]

    def iter_records(self, flt: SearchFilter | None = None) -> Iterator[Record]:
        """Records passing ``flt``, oldest date first."""
        clauses, params = _filter_sql(flt or SearchFilter())
        sql = (
            "SELECT data FROM records WHERE "
            + " AND ".join(clauses)
            + " ORDER BY coalesce(date, ''), instance, source, position"
        )
        for (data,) in self.db.execute(sql, params):
            yield load_record(data)

    def rowids_with_arxiv(self, arxiv_ids: list[str], role: str | None = None) -> list[int]:
        if not arxiv_ids:
            return []
        marks = ",".join("?" * len(arxiv_ids))
        sql = f"SELECT DISTINCT rowid FROM record_arxiv WHERE arxiv_id IN ({marks})"
        params: list[str] = list(arxiv_ids)
        if role:
            sql += " AND role = ?"
            params.append(role)
        return [r[0] for r in self.db.execute(sql, params)]

    def id_mentions(self, arxiv_id: str | None = None) -> list[IdMention]:
        sql, params = "SELECT data FROM id_mentions", tuple[str, ...]()
        if arxiv_id:
            sql, params = sql + " WHERE arxiv_id = ?", (arxiv_id,)
        rows = self.db.execute(sql + " ORDER BY source, position", params)
        return [IdMention.model_validate_json(r[0]) for r in rows]

    def mentions_json(self, source: str) -> list[str]:
        """The stored id-table rows of one file, as JSON, in order."""
        rows = self.db.execute("SELECT data FROM id_mentions WHERE source = ? ORDER BY position", (source,))
        return [r[0] for r in rows]

    def rowids_with_refs(self, refs: list[str]) -> list[int]:
        """Records carrying any of ``refs`` (``github:owner/repo``, ``url:…``)."""
        return lexical.rowids_with_refs(self.db, refs)

    def refs_of(self, rowids: list[int]) -> dict[int, list[str]]:
        """Row id → the exact references (repos, URLs) stored for it."""
        found: dict[int, list[str]] = {}
        for chunk in _chunks(rowids, 500):
            marks = ",".join("?" * len(chunk))
            for rowid, ref in self.db.execute(f"SELECT rowid, ref FROM record_refs WHERE rowid IN ({marks})", chunk):
                found.setdefault(rowid, []).append(ref)
        return found

    def lexical_documents(self, rowids: list[int]) -> dict[int, str]:
        """Row id → the text the lexical index holds for it (title, body, meta)."""
        found: dict[int, str] = {}
        for chunk in _chunks(rowids, 500):
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT rowid, title, body, meta FROM {lexical.FTS_TABLE} WHERE rowid IN ({marks})", chunk
            )
            for rowid, title, body, meta in rows:
                found[rowid] = "\n".join((title, body, meta))
        return found

    def lexical_search(
        self, terms: lexical.QueryTerms, limit: int, flt: SearchFilter | None = None
    ) -> list[tuple[int, float]]:
        """The best lexical matches as (rowid, score), best first, filtered before the cut."""
        clauses, params = _filter_sql(flt or SearchFilter())
        return lexical.search(self.db, terms, limit, clauses, params)

    def records_with_names(self, names: list[str], flt: SearchFilter | None = None) -> dict[str, list[int]]:
        """Rare name → the records within the filter holding it (see ``lexical.records_with_names``)."""
        if not names:
            return {}
        clauses, params = _filter_sql(flt or SearchFilter())
        return lexical.records_with_names(self.db, names, clauses, params)

    def filter_rowids(self, flt: SearchFilter) -> list[int] | None:
        """Row ids passing the filter, or None when nothing is filtered."""
        if flt.is_empty():
            return None
        clauses, params = _filter_sql(flt)
        return [r[0] for r in self.db.execute("SELECT rowid FROM records WHERE " + " AND ".join(clauses), params)]

    def restrict(self, rowids: list[int], flt: SearchFilter) -> list[int]:
        """The given row ids that pass the filter, in their given order.

        Candidates found by id are few; filtering them in SQL avoids listing
        every record the filter allows."""
        if flt.is_empty() or not rowids:
            return list(rowids)
        clauses, params = _filter_sql(flt)
        passing: set[int] = set()
        for chunk in _chunks(sorted(set(rowids)), 500):
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT rowid FROM records WHERE rowid IN ({marks}) AND " + " AND ".join(clauses)
            passing.update(r[0] for r in self.db.execute(sql, [*chunk, *params]))
        return [r for r in rowids if r in passing]

    def _filter_vector_ids(self, flt: SearchFilter) -> np.ndarray | None:
        """Vector ids of the records the filter's *include* part keeps, or None.

        Cached per generation: a check searches several times with one filter,
        and listing the ids is a scan of every record."""
        include = flt.model_copy(update={"exclude_ids": [], "exclude_sources": []})
        if include.is_empty():
            return None
        key = (self.generation, include.model_dump_json())
        if self._allowed_cache is None or self._allowed_cache[0] != key:
            clauses, params = _filter_sql(include)
            sql = f"SELECT {_VID} FROM passages p JOIN records ON records.rowid = p.rowid WHERE " + " AND ".join(
                clauses
            )
            ids = np.fromiter((r[0] for r in self.db.execute(sql, params)), dtype=np.int64)
            self._allowed_cache = (key, ids)
        return self._allowed_cache[1]

    def _excluded_rowids(self, flt: SearchFilter) -> set[int]:
        """Records the filter's *exclude* part drops: a few ids and files, so
        they are dropped from the results instead of listing everything else."""
        clauses, params = _exclusion_sql(flt, "IN")
        if not clauses:
            return set()
        return {r[0] for r in self.db.execute(f"SELECT rowid FROM records WHERE {' OR '.join(clauses)}", params)}

    def search_records(
        self, query: np.ndarray, k: int, flt: SearchFilter | None = None
    ) -> list[tuple[int, float, int]]:
        """The k best records as (rowid, score, best passage number), best first."""
        flt = flt or SearchFilter()
        index = self.vector_index
        allowed = self._filter_vector_ids(flt)
        excluded = self._excluded_rowids(flt)
        available = index.count if allowed is None else len(allowed)
        fetch = (k + len(excluded)) * _OVERFETCH
        while True:
            scores, ids = index.search(query[None, :], min(fetch, max(available, 1)), allowed)
            best = [hit for hit in _best_per_record(scores[0], ids[0]) if hit[0] not in excluded]
            if len(best) >= k or fetch >= available:
                return best[:k]
            fetch *= 2

    def score_records(self, rowids: list[int], query: np.ndarray) -> list[tuple[int, float, int]]:
        """(rowid, best passage score, passage number) for the given records."""
        vids = self._vector_ids(rowids)
        scores = self.vector_index.scores_for(vids, query)
        best = _best_per_record(scores, vids)
        order = {r: i for i, r in enumerate(rowids)}
        return sorted(best, key=lambda row: order[row[0]])

    def passage_vectors(self, rowids: list[int]) -> dict[int, np.ndarray]:
        """rowid → its passage vectors, one row per passage in ``Record.passages()`` order."""
        vids = self._vector_ids(sorted(set(rowids)))
        vectors = self.vector_index.vectors(np.sort(vids))
        grouped: dict[int, list[np.ndarray]] = {}
        for vid, vector in zip(np.sort(vids).tolist(), vectors, strict=True):
            grouped.setdefault(vid // MAX_PASSAGES, []).append(vector)
        return {rowid: np.stack(rows) for rowid, rows in grouped.items()}

    def whole_vectors(self, records: dict[int, Record]) -> dict[int, np.ndarray]:
        """rowid → the vector of its whole-record passage (``Record.embed_text``),
        read from SQLite by content hash: one vector per record, none of the
        title and claim passages (``audit`` scores records by this one)."""
        model = self.model
        if model is None:
            return {}
        by_hash: dict[str, list[int]] = {}
        for rowid, record in records.items():
            by_hash.setdefault(text_hash(record.embed_text()), []).append(rowid)
        found: dict[int, np.ndarray] = {}
        for chunk in _chunks(sorted(by_hash), 500):
            marks = ",".join("?" * len(chunk))
            for content_hash, blob in self.db.execute(
                f"SELECT content_hash, vector FROM vectors WHERE model = ? AND content_hash IN ({marks})",
                [model, *chunk],
            ):
                vector = np.frombuffer(blob, dtype=np.float32)
                found.update((rowid, vector) for rowid in by_hash[content_hash])
        return found

    def records_holding(self, term: str, column: Literal["title", "body"], limit: int) -> int:
        """How many records hold ``term`` in their title or text, counted up to
        ``limit`` + 1 (see ``lexical.rowids_holding``)."""
        return len(lexical.rowids_holding(self.db, term, limit, column))

    def _vector_ids(self, rowids: list[int]) -> np.ndarray:
        found: list[int] = []
        for chunk in _chunks(rowids, 500):
            marks = ",".join("?" * len(chunk))
            found += [r[0] for r in self.db.execute(f"SELECT {_VID} FROM passages p WHERE p.rowid IN ({marks})", chunk)]
        return np.array(found, dtype=np.int64)

    # -- vectors -------------------------------------------------------------

    def missing_hashes(self, hashes: Iterable[str], model: str) -> set[str]:
        wanted = set(hashes)
        present: set[str] = set()
        for chunk in _chunks(sorted(wanted), 500):
            marks = ",".join("?" * len(chunk))
            present.update(
                r[0]
                for r in self.db.execute(
                    f"SELECT content_hash FROM vectors WHERE model = ? AND content_hash IN ({marks})", [model, *chunk]
                )
            )
        return wanted - present

    @property
    def vector_index(self) -> VectorIndex:
        """The search cache for the current generation, loaded or rebuilt when needed.

        A long-lived store (the TUI) follows other processes' writes: a new
        generation means a new index.
        """
        generation = self.generation
        if self._index is None or self._index_generation != generation:
            self._index = self._load_or_rebuild_index(generation)
            self._index_generation = generation
        return self._index

    def _load_or_rebuild_index(self, generation: int) -> VectorIndex:
        model, dim = self.model, self.dim
        if model is None or dim is None:
            return VectorIndex(dim or 1)
        try:
            return load_cache(self.root, model=model, dim=dim, generation=generation, passages=self.passage_count())
        except CacheProblem as problem:
            self._rebuilt, self._rebuilt_saved = str(problem), False
        return self._index_from_db(model, dim)

    def cache_rebuilt(self) -> str | None:
        """Why the vector cache in use was rebuilt from the database, if it was."""
        return self._rebuilt

    def repair_cache(self) -> None:
        """Rewrite a missing, stale or corrupt cache; for writers, under the lock."""
        _ = self.vector_index  # loads the cache, or rebuilds it and records why
        if self._rebuilt is not None and not self._rebuilt_saved:
            self.save_cache()

    def _index_from_db(self, model: str, dim: int) -> VectorIndex:
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
            dim, passages, self._vector_chunks(model, dim), lambda size: self._vector_sample(model, dim, size)
        )

    def _vector_chunks(self, model: str, dim: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        cursor = self.db.execute(
            f"SELECT {_VID}, v.vector FROM passages p JOIN vectors v "
            "ON v.content_hash = p.content_hash AND v.model = ? ORDER BY 1",
            (model,),
        )
        while rows := cursor.fetchmany(5_000):
            yield (
                np.array([r[0] for r in rows], dtype=np.int64),
                np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(-1, dim),
            )

    def _vector_sample(self, model: str, dim: int, size: int) -> np.ndarray:
        """``size`` stored vectors picked at random (a fixed seed), to train IVF."""
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
        sample = np.empty((len(picked), dim), dtype=np.float32)
        filled = 0
        for chunk in _chunks([hashes[i] for i in picked], 500):
            marks = ",".join("?" * len(chunk))
            blobs = [
                r[0]
                for r in self.db.execute(
                    f"SELECT vector FROM vectors WHERE model = ? AND content_hash IN ({marks})", [model, *chunk]
                )
            ]
            sample[filled : filled + len(blobs)] = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(-1, dim)
            filled += len(blobs)
        return sample[:filled]

    def read_manifest(self) -> Manifest | None:
        return read_manifest(self.root)

    # -- writing -------------------------------------------------------------

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """All or nothing: a failed or killed write leaves the last committed state."""
        if self.read_only:
            raise read_only_error(self.root)
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            raise write_error(err, self.root) from err
        try:
            yield
            self.db.execute("COMMIT")
        except BaseException as err:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            if isinstance(err, sqlite3.OperationalError):
                raise write_error(err, self.root) from err
            raise

    def apply(self, changes: ChangeSet, model: str) -> None:
        """Write records, vectors and mentions in one transaction, then refresh
        the vector cache."""
        index = self.vector_index if self.count() else None
        with self._transaction():
            self._bind_model(model, changes)
            self._put_vectors(changes.vectors, model)
            for batch in changes.vector_batches:
                self._put_vectors(batch, model)
            dropped = self._delete(changes.deletes)
            replaced, fresh = self._upsert(changes.upserts, changes.files)
            self._replace_mentions(changes.mentions)
            self._set_meta("generation", str(self.generation + 1))
            self._set_meta("last_ingest", dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
        # Everything is in SQLite now: let the records and vectors go before
        # the index is built (hundreds of MB at 100k records). The change set
        # is consumed.
        changes.upserts, changes.vectors, changes.vector_batches = [], {}, ()
        self._refresh_index(index, dropped + replaced, fresh, model)

    def _bind_model(self, model: str, changes: ChangeSet) -> None:
        self.require_model(model)
        if self.model != model and (changes.vectors or changes.dim):
            dim = changes.dim or next(iter(changes.vectors.values())).shape[-1]
            self._set_meta("model", model)
            self._set_meta("dim", str(dim))

    def _put_vectors(self, vectors: dict[str, np.ndarray], model: str) -> None:
        # A generator: a list would hold a second copy of every vector (200 MB at 100k texts).
        self.db.executemany(
            "INSERT OR REPLACE INTO vectors(model, content_hash, vector) VALUES (?, ?, ?)",
            ((model, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in vectors.items()),
        )

    def _delete(self, record_ids: list[str]) -> list[int]:
        """Deletes records; returns the vector ids they had."""
        dropped: list[int] = []
        for record_id in record_ids:
            row = self.db.execute("SELECT rowid FROM records WHERE id = ?", (record_id,)).fetchone()
            if row:
                dropped += self._vector_ids([row[0]]).tolist()
                lexical.delete(self.db, row[0])
                self.db.execute("DELETE FROM records WHERE rowid = ?", (row[0],))
        return dropped

    def _upsert(self, records: list[Record], files: dict[str, str]) -> tuple[list[int], list[int]]:
        """Returns (vector ids to drop, rowids whose passages are new)."""
        dropped: list[int] = []
        fresh: list[int] = []
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        for record in records:
            old = self.db.execute("SELECT rowid, content_hash FROM records WHERE id = ?", (record.id,)).fetchone()
            values = (*_record_row(record), files.get(record.id, record.source))
            if old is None:
                rowid = int(
                    self.db.execute(
                        "INSERT INTO records(id, kind, title, text, date, instance, topic, section, source, "
                        "position, content_hash, data, file, ingested_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                        (record.id, *values, now),
                    ).lastrowid
                    or 0
                )
                self._write_passages(rowid, record)
                fresh.append(rowid)
            else:
                rowid = old[0]
                self.db.execute(
                    "UPDATE records SET kind=?, title=?, text=?, date=?, instance=?, topic=?, section=?, "
                    "source=?, position=?, content_hash=?, data=?, file=?, ingested_at=? WHERE rowid=?",
                    (*values, now, rowid),
                )
                if old[1] != record.content_hash:
                    dropped += self._vector_ids([rowid]).tolist()
                    self._write_passages(rowid, record)
                    fresh.append(rowid)
            self._write_arxiv(rowid, record)
            lexical.write(self.db, rowid, record)
        return dropped, fresh

    def _write_passages(self, rowid: int, record: Record) -> None:
        self.db.execute("DELETE FROM passages WHERE rowid = ?", (rowid,))
        self.db.executemany(
            "INSERT INTO passages(rowid, idx, content_hash) VALUES (?,?,?)",
            [(rowid, i, text_hash(t)) for i, t in enumerate(record.passages())],
        )

    def _write_arxiv(self, rowid: int, record: Record) -> None:
        self.db.execute("DELETE FROM record_arxiv WHERE rowid = ?", (rowid,))
        rows = [(rowid, a, "subject") for a in record.arxiv_ids]
        rows += [(rowid, a, "cited") for a in record.cited_ids if a not in record.arxiv_ids]
        self.db.executemany("INSERT OR IGNORE INTO record_arxiv(rowid, arxiv_id, role) VALUES (?,?,?)", rows)

    def _replace_mentions(self, mentions: dict[str, list[IdMention]]) -> None:
        for source, rows in mentions.items():
            self.db.execute("DELETE FROM id_mentions WHERE source = ?", (source,))
            self.db.executemany(
                "INSERT INTO id_mentions(source, position, arxiv_id, data) VALUES (?,?,?,?)",
                [(source, i, m.arxiv_id, m.model_dump_json()) for i, m in enumerate(rows)],
            )

    def _refresh_index(self, index: VectorIndex | None, drop: list[int], add: list[int], model: str) -> None:
        dim = self.dim
        if dim is None:
            return
        if index is None or index.dim != dim:
            self._index = self._index_from_db(model, dim)
        else:
            index.remove(np.array(drop, dtype=np.int64))
            ids, vectors = self._passage_vectors(add, model, dim)
            index.add(ids, vectors)
            self._index = index
        self._index_generation = self.generation
        self.save_cache()

    def _passage_vectors(self, rowids: list[int], model: str, dim: int) -> tuple[np.ndarray, np.ndarray]:
        pairs: list[tuple[int, bytes]] = []
        for chunk in _chunks(rowids, 500):
            marks = ",".join("?" * len(chunk))
            pairs += self.db.execute(
                f"SELECT {_VID}, v.vector FROM passages p JOIN vectors v ON v.content_hash = p.content_hash "
                f"AND v.model = ? WHERE p.rowid IN ({marks})",
                [model, *chunk],
            ).fetchall()
        ids = np.array([p[0] for p in pairs], dtype=np.int64)
        vectors = np.frombuffer(b"".join(p[1] for p in pairs), dtype=np.float32).reshape(-1, dim)
        return ids, vectors

    def save_cache(self) -> None:
        """Write the cache files for the committed state.

        The data is already safe in SQLite, so a failure here (disk full) is
        a note, not an error: the next open rebuilds the cache.
        """
        index, model, dim = self._index, self.model, self.dim
        if index is None or model is None or dim is None:
            return
        try:
            write_cache(self.root, index, model=model, dim=dim, generation=self.generation)
        except OSError as err:
            self._notes.append(
                f"the records are saved, but the vector cache could not be written "
                f"({err.strerror}); the next command rebuilds it from the database"
            )
            return
        self._rebuilt_saved = True

    def rebind_model(self, model: str, vectors: dict[str, np.ndarray], dim: int) -> None:
        """Switch the whole index to another model (``kbsearch reindex``)."""
        with self._transaction():
            self._put_vectors(vectors, model)
            self._set_meta("model", model)
            self._set_meta("dim", str(dim))
            self._set_meta("generation", str(self.generation + 1))
        self._index = self._index_from_db(model, dim)
        self._index_generation = self.generation
        self.save_cache()

    def stored_dim(self, model: str) -> int | None:
        """The dimension of ``model``'s stored vectors, if any are stored."""
        row = self.db.execute("SELECT length(vector) FROM vectors WHERE model = ? LIMIT 1", (model,)).fetchone()
        return int(row[0]) // np.dtype(np.float32).itemsize if row else None  # stored as float32

    def all_passage_texts(self) -> dict[str, str]:
        """Passage hash → text, for every passage of every record."""
        texts: dict[str, str] = {}
        for (data,) in self.db.execute("SELECT data FROM records"):
            texts.update((text_hash(t), t) for t in load_record(data).passages())
        return texts


def _record_row(record: Record) -> tuple[object, ...]:
    return (
        record.kind.value,
        record.title,
        record.text,
        record.date.isoformat() if record.date else None,
        record.instance,
        record.topic,
        record.section,
        record.source,
        record.position,
        record.content_hash,
        record.stored_json(),
    )


def load_record(data: str) -> Record:
    payload = json.loads(data)
    payload.pop("content_hash", None)
    return Record.model_validate(payload)


def _best_per_record(scores: np.ndarray, vector_ids: np.ndarray) -> list[tuple[int, float, int]]:
    """Group passage hits by record, keeping each record's best; best first."""
    best: dict[int, tuple[float, int]] = {}
    for score, vid in zip(scores.tolist(), vector_ids.tolist(), strict=True):
        if vid < 0:
            continue
        rowid, idx = divmod(int(vid), MAX_PASSAGES)
        if rowid not in best or score > best[rowid][0]:
            best[rowid] = (float(score), idx)
    ranked = sorted(best.items(), key=lambda item: -item[1][0])
    return [(rowid, score, idx) for rowid, (score, idx) in ranked]


def _filter_sql(flt: SearchFilter) -> tuple[list[str], list[object]]:
    clauses: list[str] = ["1"]
    params: list[object] = []
    if flt.kinds:
        clauses.append(f"kind IN ({','.join('?' * len(flt.kinds))})")
        params += [k.value for k in flt.kinds]
    for column in ("instance", "topic"):
        value = getattr(flt, column)
        if value:
            clauses.append(f"{column} = ? COLLATE NOCASE")
            params.append(value)
    if flt.since:
        clauses.append("date >= ?")
        params.append(flt.since.isoformat())
    if flt.until:
        clauses.append("date <= ?")
        params.append(flt.until.isoformat())
    if flt.section:
        clauses.append("instr(lower(coalesce(section, '')), lower(?)) > 0")
        params.append(flt.section)
    excluded, excluded_params = _exclusion_sql(flt, "NOT IN")
    return clauses + excluded, params + excluded_params


def _exclusion_sql(flt: SearchFilter, operator: str) -> tuple[list[str], list[object]]:
    """The filter's excluded ids and files as SQL: ``NOT IN`` to keep the rest,
    ``IN`` to list the excluded records themselves."""
    clauses: list[str] = []
    params: list[object] = []
    if flt.exclude_ids:
        clauses.append(f"id {operator} ({','.join('?' * len(flt.exclude_ids))})")
        params += flt.exclude_ids
    if flt.exclude_sources:
        clauses.append(f"coalesce(file, '') {operator} ({','.join('?' * len(flt.exclude_sources))})")
        params += flt.exclude_sources
    return clauses, params


def _chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
