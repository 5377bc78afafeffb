"""The on-disk knowledge base: SQLite for records and vectors, FAISS for search.

SQLite is the source of truth. It holds every record, every vector (keyed by
model and content hash, so unchanged text is never embedded twice) and a
generation counter bumped by each write transaction. ``vectors.faiss`` and
``manifest.json`` are a derived search cache stamped with the generation they
were built from. A crash between the SQLite commit and the cache write leaves a
stale stamp, and the next open rebuilds the cache from SQLite without
embedding anything.

A record has several passages (title, whole text, each claim; see
``Record.passages``), each with its own vector. A FAISS id packs the record's
rowid and the passage number as ``rowid * MAX_PASSAGES + idx``; a record's
score is the best score of its passages.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TypeVar

import numpy as np
from pydantic import BaseModel, ValidationError

from kbsearch import lexical
from kbsearch.errors import KbError
from kbsearch.records import MAX_PASSAGES, IdMention, Kind, Record, text_hash
from kbsearch.schema import FORMAT_VERSION, migrate
from kbsearch.vector_index import VectorIndex, write_atomic

DB_NAME = "kb.sqlite"
VECTORS_NAME = "vectors.faiss"
MANIFEST_NAME = "manifest.json"
_VID = f"(p.rowid * {MAX_PASSAGES} + p.idx)"
T = TypeVar("T")
# Passages fetched per wanted record before grouping; doubled until k records are found.
_OVERFETCH = 4


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
    mentions: dict[str, list[IdMention]] = field(default_factory=dict)


class Store:
    """Open with ``Store.open(dir, model=...)``; refuses an index of another model."""

    def __init__(self, root: Path, db: sqlite3.Connection) -> None:
        self.root = root
        self.db = db
        self.notes: list[str] = []
        self._index: VectorIndex | None = None

    # -- opening -------------------------------------------------------------

    @classmethod
    def open(cls, root: Path, *, model: str | None = None, create: bool = False) -> Store:
        db_path = root / DB_NAME
        if not db_path.exists() and not create:
            raise KbError(f"no index at {root}",
                          hint="build one with 'kbsearch ingest PATH', "
                               "or point --index / KBSEARCH_INDEX at one")
        try:
            root.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(db_path, timeout=30.0, isolation_level=None)
            db.execute("PRAGMA foreign_keys = ON")
            db.execute("PRAGMA journal_mode = WAL")
            migrate(db)
        except sqlite3.DatabaseError as err:
            raise KbError(f"the index database is unreadable: {err}", path=str(db_path),
                          hint="restore it from a backup, "
                               "or delete the index folder and ingest again") from err
        except OSError as err:
            raise KbError(f"cannot open the index: {err.strerror}", path=str(root),
                          hint="check the folder's permissions") from err
        store = cls(root, db)
        if model is not None:
            store.require_model(model)
        return store

    def close(self) -> None:
        self.db.close()

    def require_model(self, model: str) -> None:
        built_with = self.model
        if built_with is not None and built_with != model and self.count() > 0:
            raise KbError(f"the index at {self.root} was built with model {built_with!r}, not {model!r}",
                          hint=f"run 'kbsearch reindex --model {model}' to switch it, "
                               f"or pass --model {built_with}")

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
        return _load_record(row[0]) if row else None

    def by_rowids(self, rowids: Iterable[int]) -> dict[int, Record]:
        wanted = [int(r) for r in rowids]
        found: dict[int, Record] = {}
        for chunk in _chunks(wanted, 500):
            marks = ",".join("?" * len(chunk))
            for rowid, data in self.db.execute(
                    f"SELECT rowid, data FROM records WHERE rowid IN ({marks})", chunk):
                found[rowid] = _load_record(data)
        return found

    def stored_by_file(self, file: str) -> dict[str, str]:
        """Record id → stored JSON for every record read from ``file``."""
        rows = self.db.execute("SELECT id, data FROM records WHERE file = ?", (file,))
        return {rid: data for rid, data in rows}

    def files(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT file FROM records WHERE file IS NOT NULL")]

    def iter_records(self, flt: SearchFilter | None = None) -> Iterator[Record]:
        """Records passing ``flt``, oldest date first."""
        clauses, params = _filter_sql(flt or SearchFilter())
        sql = ("SELECT data FROM records WHERE " + " AND ".join(clauses)
               + " ORDER BY coalesce(date, ''), instance, source, position")
        for (data,) in self.db.execute(sql, params):
            yield _load_record(data)

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
        sql, params = "SELECT data FROM id_mentions", []
        if arxiv_id:
            sql, params = sql + " WHERE arxiv_id = ?", [arxiv_id]
        rows = self.db.execute(sql + " ORDER BY source, position", params)
        return [IdMention.model_validate_json(r[0]) for r in rows]

    def rowids_with_refs(self, refs: list[str]) -> list[int]:
        """Records carrying any of ``refs`` (``github:owner/repo``, ``url:…``)."""
        return lexical.rowids_with_refs(self.db, refs)

    def refs_of(self, rowids: list[int]) -> dict[int, list[str]]:
        """Row id → the exact references (repos, URLs) stored for it."""
        found: dict[int, list[str]] = {}
        for chunk in _chunks(rowids, 500):
            marks = ",".join("?" * len(chunk))
            for rowid, ref in self.db.execute(
                    f"SELECT rowid, ref FROM record_refs WHERE rowid IN ({marks})", chunk):
                found.setdefault(rowid, []).append(ref)
        return found

    def lexical_documents(self, rowids: list[int]) -> dict[int, str]:
        """Row id → the text the lexical index holds for it (title, body, meta)."""
        found: dict[int, str] = {}
        for chunk in _chunks(rowids, 500):
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT rowid, title, body, meta FROM {lexical.FTS_TABLE} WHERE rowid IN ({marks})", chunk)
            for rowid, title, body, meta in rows:
                found[rowid] = "\n".join((title, body, meta))
        return found

    def lexical_search(self, terms: lexical.QueryTerms, limit: int,
                       flt: SearchFilter | None = None) -> list[tuple[int, float]]:
        """The best lexical matches as (rowid, score), best first, filtered before the cut."""
        clauses, params = _filter_sql(flt or SearchFilter())
        return lexical.search(self.db, terms, limit, clauses, params)

    def filter_rowids(self, flt: SearchFilter) -> list[int] | None:
        """Row ids passing the filter, or None when nothing is filtered."""
        if flt.is_empty():
            return None
        clauses, params = _filter_sql(flt)
        return [r[0] for r in self.db.execute(
            "SELECT rowid FROM records WHERE " + " AND ".join(clauses), params)]

    def _filter_vector_ids(self, flt: SearchFilter) -> np.ndarray | None:
        if flt.is_empty():
            return None
        clauses, params = _filter_sql(flt)
        sql = (f"SELECT {_VID} FROM passages p JOIN records ON records.rowid = p.rowid WHERE "
               + " AND ".join(clauses))
        return np.fromiter((r[0] for r in self.db.execute(sql, params)), dtype=np.int64)

    def search_records(self, query: np.ndarray, k: int,
                       flt: SearchFilter | None = None) -> list[tuple[int, float, int]]:
        """The k best records as (rowid, score, best passage number), best first."""
        index = self.vector_index
        allowed = self._filter_vector_ids(flt or SearchFilter())
        available = index.count if allowed is None else len(allowed)
        fetch = k * _OVERFETCH
        while True:
            scores, ids = index.search(query[None, :], min(fetch, max(available, 1)), allowed)
            best = _best_per_record(scores[0], ids[0])
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

    def _vector_ids(self, rowids: list[int]) -> np.ndarray:
        found: list[int] = []
        for chunk in _chunks(rowids, 500):
            marks = ",".join("?" * len(chunk))
            found += [r[0] for r in self.db.execute(
                f"SELECT {_VID} FROM passages p WHERE p.rowid IN ({marks})", chunk)]
        return np.array(found, dtype=np.int64)

    # -- vectors -------------------------------------------------------------

    def missing_hashes(self, hashes: Iterable[str], model: str) -> set[str]:
        wanted = set(hashes)
        present: set[str] = set()
        for chunk in _chunks(sorted(wanted), 500):
            marks = ",".join("?" * len(chunk))
            present.update(r[0] for r in self.db.execute(
                f"SELECT content_hash FROM vectors WHERE model = ? AND content_hash IN ({marks})",
                [model, *chunk]))
        return wanted - present

    @property
    def vector_index(self) -> VectorIndex:
        """The search cache, loaded or rebuilt on first use."""
        if self._index is None:
            self._index = self._load_or_rebuild_index()
        return self._index

    def _load_or_rebuild_index(self) -> VectorIndex:
        model, dim = self.model, self.dim
        if model is None or dim is None:
            return VectorIndex(dim or 1)
        problem = self._cache_problem()
        if problem is None:
            data = (self.root / VECTORS_NAME).read_bytes()
            return VectorIndex.from_bytes(data, dim, str(self.root / VECTORS_NAME))
        self.notes.append(f"rebuilt the vector cache from the database ({problem})")
        return self._index_from_db(model, dim)

    def _cache_problem(self) -> str | None:
        manifest = self.read_manifest()
        if manifest is None:
            return "manifest missing or unreadable"
        if manifest.generation != self.generation or manifest.model != self.model:
            return "manifest out of date"
        path = self.root / VECTORS_NAME
        if not path.exists():
            return "vector file missing"
        if hashlib.sha256(path.read_bytes()).hexdigest() != manifest.vectors_sha256:
            return "vector file does not match its manifest"
        return None

    def _index_from_db(self, model: str, dim: int) -> VectorIndex:
        rows = self.db.execute(
            f"SELECT {_VID}, v.vector FROM passages p JOIN vectors v "
            "ON v.content_hash = p.content_hash AND v.model = ? ORDER BY 1", (model,)).fetchall()
        passages = int(self.db.execute("SELECT count(*) FROM passages").fetchone()[0])
        if len(rows) != passages:
            raise KbError(f"{passages - len(rows)} passages have no {model!r} vector",
                          hint=f"run 'kbsearch reindex --model {model}'")
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        vectors = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(-1, dim)
        return VectorIndex.build(dim, ids, vectors)

    def read_manifest(self) -> Manifest | None:
        try:
            return Manifest.model_validate_json((self.root / MANIFEST_NAME).read_bytes())
        except (OSError, ValidationError, ValueError):
            return None

    # -- writing -------------------------------------------------------------

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def apply(self, changes: ChangeSet, model: str) -> None:
        """Write records, vectors and mentions in one transaction, then refresh
        the vector cache."""
        index = self.vector_index if self.count() else None
        with self._transaction():
            self._bind_model(model, changes)
            self._put_vectors(changes.vectors, model)
            dropped = self._delete(changes.deletes)
            replaced, fresh = self._upsert(changes.upserts, changes.files)
            self._replace_mentions(changes.mentions)
            self._set_meta("generation", str(self.generation + 1))
            self._set_meta("last_ingest", dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
        self._refresh_index(index, dropped + replaced, fresh, model)

    def _bind_model(self, model: str, changes: ChangeSet) -> None:
        self.require_model(model)
        if self.model != model and changes.vectors:
            dim = next(iter(changes.vectors.values())).shape[-1]
            self._set_meta("model", model)
            self._set_meta("dim", str(dim))

    def _put_vectors(self, vectors: dict[str, np.ndarray], model: str) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO vectors(model, content_hash, vector) VALUES (?, ?, ?)",
            [(model, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in vectors.items()])

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
            old = self.db.execute("SELECT rowid, content_hash FROM records WHERE id = ?",
                                  (record.id,)).fetchone()
            values = (*_record_row(record), files.get(record.id, record.source))
            if old is None:
                rowid = int(self.db.execute(
                    "INSERT INTO records(id, kind, title, text, date, instance, topic, section, source, "
                    "position, content_hash, data, file, ingested_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (record.id, *values, now)).lastrowid or 0)
                self._write_passages(rowid, record)
                fresh.append(rowid)
            else:
                rowid = old[0]
                self.db.execute(
                    "UPDATE records SET kind=?, title=?, text=?, date=?, instance=?, topic=?, section=?, "
                    "source=?, position=?, content_hash=?, data=?, file=?, ingested_at=? WHERE rowid=?",
                    (*values, now, rowid))
                if old[1] != record.content_hash:
                    dropped += self._vector_ids([rowid]).tolist()
                    self._write_passages(rowid, record)
                    fresh.append(rowid)
            self._write_arxiv(rowid, record)
            lexical.write(self.db, rowid, record)
        return dropped, fresh

    def _write_passages(self, rowid: int, record: Record) -> None:
        self.db.execute("DELETE FROM passages WHERE rowid = ?", (rowid,))
        self.db.executemany("INSERT INTO passages(rowid, idx, content_hash) VALUES (?,?,?)",
                            [(rowid, i, text_hash(t)) for i, t in enumerate(record.passages())])

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
                [(source, i, m.arxiv_id, m.model_dump_json()) for i, m in enumerate(rows)])

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
        self.save_cache()

    def _passage_vectors(self, rowids: list[int], model: str, dim: int) -> tuple[np.ndarray, np.ndarray]:
        pairs: list[tuple[int, bytes]] = []
        for chunk in _chunks(rowids, 500):
            marks = ",".join("?" * len(chunk))
            pairs += self.db.execute(
                f"SELECT {_VID}, v.vector FROM passages p JOIN vectors v ON v.content_hash = p.content_hash "
                f"AND v.model = ? WHERE p.rowid IN ({marks})", [model, *chunk]).fetchall()
        ids = np.array([p[0] for p in pairs], dtype=np.int64)
        vectors = np.frombuffer(b"".join(p[1] for p in pairs), dtype=np.float32).reshape(-1, dim)
        return ids, vectors

    def save_cache(self) -> None:
        """Write vectors.faiss, then manifest.json, each atomically."""
        index, model, dim = self._index, self.model, self.dim
        if index is None or model is None or dim is None:
            return
        data = index.to_bytes()
        write_atomic(self.root / VECTORS_NAME, data)
        manifest = Manifest(
            format_version=FORMAT_VERSION, model=model, dim=dim, count=index.count,
            generation=self.generation, vectors_sha256=hashlib.sha256(data).hexdigest(),
            libraries=_library_versions(), updated=dt.datetime.now(dt.UTC))
        write_atomic(self.root / MANIFEST_NAME, manifest.model_dump_json(indent=2).encode())

    def rebind_model(self, model: str, vectors: dict[str, np.ndarray], dim: int) -> None:
        """Switch the whole index to another model (``kbsearch reindex``)."""
        with self._transaction():
            self._put_vectors(vectors, model)
            self._set_meta("model", model)
            self._set_meta("dim", str(dim))
            self._set_meta("generation", str(self.generation + 1))
        self._index = self._index_from_db(model, dim)
        self.save_cache()

    def all_passage_texts(self) -> dict[str, str]:
        """Passage hash → text, for every passage of every record."""
        texts: dict[str, str] = {}
        for (data,) in self.db.execute("SELECT data FROM records"):
            texts.update((text_hash(t), t) for t in _load_record(data).passages())
        return texts


def _record_row(record: Record) -> tuple[object, ...]:
    return (record.kind.value, record.title, record.text,
            record.date.isoformat() if record.date else None,
            record.instance, record.topic, record.section, record.source, record.position,
            record.content_hash, record.stored_json())


def _load_record(data: str) -> Record:
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
    if flt.exclude_sources:
        clauses.append(f"coalesce(file, '') NOT IN ({','.join('?' * len(flt.exclude_sources))})")
        params += flt.exclude_sources
    return clauses, params


def _library_versions() -> dict[str, str]:
    versions = {}
    for name in ("kbsearch", "faiss-cpu", "numpy", "sentence-transformers"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "unknown"
    return versions


def _chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]
