"""``Store``: one open knowledge base folder, read through one facade.

SQLite is the source of truth: every record, every vector (keyed by model and
content hash, so unchanged text is never embedded twice) and a generation counter
bumped by each write. ``vectors.faiss`` and ``manifest.json`` are a search cache
stamped with the generation they were built from (``vector_cache``): after a crash
a stale stamp makes the next open rebuild it, embedding nothing. Readers wrap each
query in ``snapshot()`` (one read transaction): the records they fetch and their
index's generation agree whatever a writer commits. Writes: ``apply``, ``rebind_model``.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

import numpy as np

import kbsearch.store.binding as binding
import kbsearch.store.lexical as lexical
import kbsearch.store.passages as passages
import kbsearch.store.row_digests as row_digests
import kbsearch.store.writer as writer
from kbsearch.filters import SearchFilter, where_sql
from kbsearch.records import IdMention, Kind, Record, RecordHead
from kbsearch.store.database import DB_NAME, file_identity, open_database
from kbsearch.store.files import UnfinishedIndex, unusable_files
from kbsearch.store.heads import ids_with_prefix, read_heads
from kbsearch.store.judge_vectors import JudgeOnDemand, stored_else_now
from kbsearch.store.ledger import IngestLedger
from kbsearch.store.lexical_reads import LexicalReads
from kbsearch.store.manifest import Manifest, read_manifest
from kbsearch.store.remote_vectors import require_choice
from kbsearch.store.sql import load_record, marks, read_meta, select_in_chunks
from kbsearch.store.vector_cache import VectorCache
from kbsearch.store.vector_search import DenseSearch, StoredVectors, VectorSearch
from kbsearch.vector_index import IndexParams, VectorIndex
from kbsearch.vector_index.choice import VectorStore


class Store(LexicalReads):
    """Open with ``Store.open(dir, model=...)``; refuses an index of another model."""

    def __init__(
        self, root: Path, db: sqlite3.Connection, *, read_only: bool = False, params: IndexParams | None = None
    ) -> None:
        self.root = root
        self.db = db
        self.read_only = read_only
        self.identity = file_identity(root / DB_NAME)  # the file opened (``database.replaced``)
        self.cache = VectorCache(root, db, params)
        self.cache.read_only = read_only
        self._vectors = VectorSearch(db, self.cache)
        self.lexical_plan: lexical.LexicalPlan = lexical.DEFAULT_PLAN  # what of FTS5 a search reads; benches swap it
        self.judge_on_demand: JudgeOnDemand | None = None  # set by who loads the judge (``judge_vectors``)

    # -- opening -------------------------------------------------------------

    @classmethod
    def open(
        cls,
        root: Path,
        *,
        model: str | None = None,
        create: bool = False,
        upgrade: bool = True,
        params: IndexParams | None = None,
    ) -> Store:
        """A folder this process can't write is opened read-only, or refused with ``create``;
        ``upgrade=False`` (doctor) refuses an older schema instead of migrating it.
        ``params`` shape its vector index (tests pass small ones).

        Only ``create`` (a write) may open a database no write ever committed to: a first ingest
        killed before its commit leaves one, and reading it would answer "no results" as if whole."""
        problem = unusable_files(root, create=create)
        if problem is not None:
            raise problem
        db, read_only = open_database(root, create=create, upgrade=upgrade)
        store = cls(root, db, read_only=read_only, params=params)
        try:
            if not create and store.generation == 0 and store.count() == 0:  # every write bumps the generation
                raise UnfinishedIndex.at(root)
            if model is not None:
                store.require_model(model)
        except BaseException:
            store.close()
            raise
        return store

    @staticmethod
    def exists(root: Path) -> bool:  # an index database
        return (root / DB_NAME).exists()

    @property
    def notes(self) -> list[str]:
        """Things worth telling the user that are not errors."""
        notes = list(self.cache.notes)
        if self.cache.rebuilt is not None:
            done = "and rewrote it" if self.cache.rebuilt_saved else "in memory ('kbsearch reindex' rewrites it)"
            notes.insert(0, f"rebuilt the vector cache from the database {done}: {self.cache.rebuilt}")
        return notes

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One consistent view of the database for a whole read (in WAL mode it never blocks the writer)."""
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("ROLLBACK")

    def close(self) -> None:
        self.cache.close()
        self.db.close()

    def require_model(self, model: str) -> None:
        binding.require_model(self.root, self.model, model, self.count)

    def require_vectors(self, wanted: VectorStore) -> None:
        """Refuse a ``--vectors`` other than the first write's; before it, keep it for that write."""
        self.cache.wanted = require_choice(self.root, self.cache.choice, wanted)

    def require_judge(self, model: str, judge: str | None) -> None:
        """Refuse a judge other than the one whose vectors the index keeps (see ``binding``)."""
        binding.require_judge(self.root, model, self.judge, judge, self.count)

    # -- metadata and counts -------------------------------------------------

    @property
    def model(self) -> str | None:
        return read_meta(self.db, "model")

    @property
    def judge(self) -> str | None:
        """The judge model whose whole-text vectors the index keeps, if any."""
        return binding.kept_judge(self.db)

    @property
    def dim(self) -> int | None:
        return int(value) if (value := read_meta(self.db, "dim")) else None

    @property
    def generation(self) -> int:
        return int(read_meta(self.db, "generation") or 0)

    @property
    def last_ingest(self) -> str | None:
        return read_meta(self.db, "last_ingest")

    def count(self, flt: SearchFilter | None = None) -> int:
        where, params = where_sql(flt)
        return int(self.db.execute(f"SELECT count(*) FROM records WHERE {where}", params).fetchone()[0])

    def passage_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM passages").fetchone()[0])

    def counts_by(self, column: Literal["kind", "instance", "topic", "category"]) -> dict[str, int]:
        """Records per value of ``column`` (every kind, even at 0; '-' for none of the others)."""
        rows = dict(self.db.execute(f"SELECT coalesce({column}, '-'), count(*) FROM records GROUP BY 1"))
        return {k.value: rows.get(k.value, 0) for k in Kind} if column == "kind" else dict(sorted(rows.items()))

    # -- records -------------------------------------------------------------

    def get(self, record_id: str) -> Record | None:
        row = self.db.execute("SELECT data FROM records WHERE id = ?", (record_id,)).fetchone()
        return load_record(row[0]) if row else None

    def rowids_of(self, record_ids: Iterable[str]) -> dict[str, int]:
        """Record id → rowid, for the ids that are stored."""
        sql = "SELECT id, rowid FROM records WHERE id IN ({marks})"
        return dict(select_in_chunks(self.db, sql, dict.fromkeys(record_ids)))

    def by_rowids(self, rowids: Iterable[int]) -> dict[int, Record]:
        sql = "SELECT rowid, data FROM records WHERE rowid IN ({marks})"
        return {rowid: load_record(data) for rowid, data in select_in_chunks(self.db, sql, [int(r) for r in rowids])}

    def ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        return ids_with_prefix(self.db, prefix, limit)

    def by_rowids_digested(self, rowids: Iterable[int]) -> dict[int, tuple[Record, bytes]]:
        """``by_rowids``, each record with the digest of its row (``row_digests``)."""
        return row_digests.records_with_digests(self.db, rowids)

    def row_digests(self, rowids: Iterable[int]) -> dict[int, bytes]:
        """rowid → the digest of its stored row now (``row_digests``), for the rows still stored."""
        return row_digests.digests(self.db, rowids)

    def vectors_basis(self) -> tuple[str | None, ...]:
        """What every stored vector is read under (``row_digests.vectors_basis``)."""
        return row_digests.vectors_basis(self.db)

    def heads(self, rowids: Iterable[int], chars: int) -> dict[int, RecordHead]:
        """Row id → the record as a search result shows it (see ``heads``), text cut to ``chars``."""
        return read_heads(self.db, rowids, chars)

    def all_rowids(self) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT rowid FROM records")]

    def newest_rowids(self, count: int) -> list[int]:
        """The ``count`` highest rowids, highest first: the records inserted last."""
        return [r[0] for r in self.db.execute("SELECT rowid FROM records ORDER BY rowid DESC LIMIT ?", (count,))]

    def files_of(self, rowids: list[int]) -> dict[int, str | None]:
        return dict(select_in_chunks(self.db, "SELECT rowid, file FROM records WHERE rowid IN ({marks})", rowids))

    def column_of_ids(
        self, ids: list[str], column: Literal["file", "content_hash", "ingested_at"]
    ) -> dict[str, str | None]:
        """Record id → its file, content hash or last write (UTC, seconds), for the ids that are stored."""
        return dict(select_in_chunks(self.db, f"SELECT id, {column} FROM records WHERE id IN ({{marks}})", ids))

    def has_records_after(self, day: dt.date) -> bool:
        row = self.db.execute("SELECT 1 FROM records WHERE date > ? LIMIT 1", (day.isoformat(),)).fetchone()
        return row is not None

    def files(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT file FROM records WHERE file IS NOT NULL")]

    def iter_records(self, flt: SearchFilter | None = None) -> Iterator[Record]:
        """Records passing ``flt``, oldest date first, undated records last."""
        where, params = where_sql(flt)
        sql = f"SELECT data FROM records WHERE {where} ORDER BY date IS NULL, date, instance, source, position"
        for (data,) in self.db.execute(sql, params):
            yield load_record(data)

    def iter_stored(self) -> Iterator[tuple[int, str, Record]]:
        """(rowid, id, record) of every record, in no particular order."""
        for rowid, record_id, data in self.db.execute("SELECT rowid, id, data FROM records"):
            yield rowid, record_id, load_record(data)

    def rowids_with_arxiv(self, arxiv_ids: list[str], role: str | None = None) -> list[int]:
        if not arxiv_ids:
            return []
        sql = f"SELECT DISTINCT rowid FROM record_arxiv WHERE arxiv_id IN ({marks(len(arxiv_ids))})"
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

    def filter_rowids(self, flt: SearchFilter) -> list[int] | None:
        """Row ids passing the filter, or None when nothing is filtered."""
        if flt.is_empty():
            return None
        where, params = where_sql(flt)
        return [r[0] for r in self.db.execute(f"SELECT rowid FROM records WHERE {where}", params)]

    def restrict(self, rowids: list[int], flt: SearchFilter) -> list[int]:
        """The given row ids passing the filter, in their order (few: filtered in SQL, not by listing all it allows)."""
        if flt.is_empty() or not rowids:
            return list(rowids)
        where, params = where_sql(flt)
        sql = f"SELECT rowid FROM records WHERE rowid IN ({{marks}}) AND {where}"
        passing = {r[0] for r in select_in_chunks(self.db, sql, sorted(set(rowids)), after=params)}
        return [r for r in rowids if r in passing]

    # -- vectors -------------------------------------------------------------

    @property
    def vector_index(self) -> VectorIndex:
        """The search cache for the current generation, loaded or rebuilt when needed."""
        return self.cache.index

    def build_index(self) -> VectorIndex:
        """A fresh vector index from the vectors in SQLite, without tombstones (compaction)."""
        model, dim = self.model, self.dim
        return self.cache.from_database(model, dim) if model and dim else VectorIndex(dim or 1, self.cache.params)

    def require_current_passages(self) -> None:
        """KbError naming ``kbsearch reindex`` when another version chose the passages."""
        passages.require_current(self.db, self.root)

    def search_records(
        self, query: np.ndarray, k: int, flt: SearchFilter | None = None
    ) -> list[tuple[int, float, int]]:
        """The k best records as (rowid, score, best passage number), best first."""
        return self._vectors.search_records(query, k, flt or SearchFilter(), self.generation)

    def dense_search(self, flt: SearchFilter | None = None) -> DenseSearch:
        """``search_records`` in two steps, the index walk free to run on another thread (see ``DenseSearch``)."""
        return self._vectors.planned(flt or SearchFilter(), self.generation)

    def score_records(self, rowids: list[int], query: np.ndarray) -> list[tuple[int, float, int]]:
        """(rowid, best passage score, passage number) for the given records."""
        return self._vectors.score_records(rowids, query)

    def stored_vectors(self, rowids: list[int]) -> StoredVectors:
        """The records' passage vectors read now, to score later: ``score_records`` in two steps."""
        return self._vectors.stored(rowids)

    def passage_vectors(self, rowids: list[int]) -> dict[int, np.ndarray]:
        """rowid → its passage vectors, one row per passage in ``Record.passages()`` order."""
        return self._vectors.passage_vectors(rowids)

    def whole_vectors(self, records: dict[int, Record]) -> dict[int, np.ndarray]:
        """rowid → the vector of its whole-record passage (``audit`` scores records by this one)."""
        return {} if (model := self.model) is None else self._vectors.whole_vectors(records, model)

    def judge_vectors(self, records: dict[int, Record] | list[int], judge: str) -> dict[int, np.ndarray]:
        """rowid → the judge ``judge``'s vector of its whole text: stored, else computed now (``judge_vectors``)."""
        return stored_else_now(self, self._vectors, records, judge)

    def missing_hashes(self, hashes: Iterable[str], model: str) -> set[str]:
        return self._vectors.missing_hashes(hashes, model)

    def stored_dim(self, model: str) -> int | None:
        """The dimension of ``model``'s stored vectors, if any are stored."""
        return self._vectors.stored_dim(model)

    def passage_vector_ids(self) -> np.ndarray:
        """The vector id of every stored passage: what the vector cache must hold."""
        return self._vectors.passage_vector_ids()

    def passages_without_vector(self, model: str) -> int:
        return self._vectors.passages_without_vector(model)

    def repair_cache(self) -> None:
        """Rewrite a missing, stale or corrupt cache; for writers, under the lock."""
        self.cache.repair()

    def read_manifest(self) -> Manifest | None:
        return read_manifest(self.root)

    # -- writing -------------------------------------------------------------

    def apply(self, changes: writer.ChangeSet, model: str) -> bool:
        """Write one change in one transaction, then refresh the vector cache; False when it was empty."""
        return writer.apply(self, changes, model)

    def ingest_ledger(self) -> IngestLedger:
        """What one ingest has seen, kept in a temporary table (see ``ledger``)."""
        return IngestLedger(self.db)

    def rebind_model(
        self, model: str, vectors: dict[str, np.ndarray], dim: int, judge: writer.JudgeVectors | None = None
    ) -> None:
        """Switch the whole index to another model and judge (``kbsearch reindex``)."""
        writer.rebind_model(self, model, vectors, dim, judge)
