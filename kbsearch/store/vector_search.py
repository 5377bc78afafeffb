"""Searching and reading the vectors of one open store.

A record has several passages (title, whole text, each claim; see
``Record.passages``), each with its own vector; a record's score is the best
score of its passages. Filters apply inside the vector search, before the
top-k cut: the records a filter keeps become the allowed vector ids (for a
remote engine, a predicate over each point's scalar fields, when the filter
can be said that way), and the few it excludes (a file, some ids) are
dropped from an overfetched result.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from kbsearch.filters import SearchFilter, where_sql
from kbsearch.records import Record, text_hash
from kbsearch.store.sql import VECTOR_ID, read_meta, select_in_chunks, unpack_vector_id, vector_rowids
from kbsearch.store.vector_cache import VectorCache
from kbsearch.vector_index import VectorIndex
from kbsearch.vector_index.predicate import Predicate

# Passages fetched per wanted record before grouping; doubled until k records are found.
_OVERFETCH = 4


@dataclass(frozen=True)
class DenseSearch:
    """One dense search, its SQLite part read when it is made
    (``VectorSearch.planned``): ``nearest`` walks the index alone, reading no
    SQLite, so it may run on another thread than the connection's;
    ``rescored`` reads exact scores on the connection's thread."""

    vectors: VectorSearch
    index: VectorIndex
    allowed: np.ndarray | None
    where: Predicate | None
    excluded: set[int]
    available: int

    def nearest(self, query: np.ndarray, k: int) -> list[tuple[int, float, int]]:
        """At least k records by the index's own scores (quantized, for an
        approximate index), best first; fewer only when fewer exist."""
        fetch = (k + len(self.excluded)) * _OVERFETCH
        while True:
            scores, ids = self.index.search(
                query[None, :], min(fetch, max(self.available, 1)), self.allowed, self.where
            )
            best = [hit for hit in best_per_record(scores[0], ids[0]) if hit[0] not in self.excluded]
            # A row padded with -1: the engine found all its predicate allows.
            exhausted = self.where is not None and bool((ids[0] < 0).any())
            if len(best) >= k or fetch >= self.available or exhausted:
                return best
            fetch *= 2

    def rescored(
        self, nearest: list[tuple[int, float, int]], query: np.ndarray, k: int
    ) -> list[tuple[int, float, int]]:
        """The k best of ``nearest`` as (rowid, score, best passage number), by their exact scores."""
        if self.index.kind == "flat":
            return nearest[:k]
        # An approximate index scores quantized codes, and a remote one may be a
        # write ahead of this snapshot: the hits it found are scored again from
        # their float32 vectors in the snapshot, so every score shown is exact
        # and every record shown is one the snapshot holds.
        return sorted(self.vectors.score_records([hit[0] for hit in nearest], query), key=lambda hit: -hit[1])[:k]


class VectorSearch:
    def __init__(self, db: sqlite3.Connection, cache: VectorCache) -> None:
        self.db = db
        self.cache = cache
        self._allowed: tuple[tuple[int, str], np.ndarray] | None = None

    def search_records(
        self, query: np.ndarray, k: int, flt: SearchFilter, generation: int
    ) -> list[tuple[int, float, int]]:
        """The k best records as (rowid, score, best passage number), best first."""
        search = self.planned(flt, generation)
        return search.rescored(search.nearest(query, k), query, k)

    def planned(self, flt: SearchFilter, generation: int) -> DenseSearch:
        index = self.cache.index
        where = Predicate.of(flt.include_part()) if index.takes_predicates else None
        allowed = None if where is not None else self._allowed_vector_ids(flt, generation)
        where = None if where is None or where.is_empty() else where
        available = len(allowed) if allowed is not None else self._held(index)
        return DenseSearch(self, index, allowed, where, self._excluded_rowids(flt), available)

    def _held(self, index: VectorIndex) -> int:
        """Vectors the search may return: a remote engine is not asked to count
        (a round trip per search), the snapshot's passages stand for it."""
        if index.takes_predicates:
            return int(self.db.execute("SELECT count(*) FROM passages").fetchone()[0])
        return index.count

    def _allowed_vector_ids(self, flt: SearchFilter, generation: int) -> np.ndarray | None:
        """Vector ids of the records the filter's *include* part keeps, or None.

        Cached per generation: a check searches several times with one filter,
        and listing the ids is a scan of every record."""
        include = flt.include_part()
        if include.is_empty():
            return None
        key = (generation, include.model_dump_json())
        if self._allowed is None or self._allowed[0] != key:
            where, params = where_sql(include)
            sql = f"SELECT {VECTOR_ID} FROM passages p JOIN records ON records.rowid = p.rowid WHERE {where}"
            self._allowed = (key, np.fromiter((r[0] for r in self.db.execute(sql, params)), dtype=np.int64))
        return self._allowed[1]

    def _excluded_rowids(self, flt: SearchFilter) -> set[int]:
        """Records the filter's *exclude* part drops: a few ids, so they are dropped
        from the results instead of listing everything else (one indexed lookup)."""
        if not flt.exclude_ids:
            return set()
        marks = ",".join("?" * len(flt.exclude_ids))
        return {r[0] for r in self.db.execute(f"SELECT rowid FROM records WHERE id IN ({marks})", flt.exclude_ids)}

    def score_records(self, rowids: list[int], query: np.ndarray) -> list[tuple[int, float, int]]:
        """(rowid, best passage score, passage number) for the given records,
        from their float32 vectors in SQLite (the dedupe rules read these scores)."""
        return self.stored(rowids).scores(rowids, query)

    def stored(self, rowids: list[int]) -> StoredVectors:
        """The records' float32 passage vectors, to score later (``StoredVectors.scores``)."""
        return StoredVectors.of_rows(*self._stored(rowids))

    def passage_vectors(self, rowids: list[int]) -> dict[int, np.ndarray]:
        """rowid → its float32 passage vectors, one row per passage in ``Record.passages()`` order."""
        vids, vectors = self._stored(sorted(set(rowids)))
        order = np.argsort(vids, kind="stable")
        grouped: dict[int, list[np.ndarray]] = {}
        for vid, vector in zip(vids[order].tolist(), vectors[order], strict=True):
            grouped.setdefault(unpack_vector_id(vid)[0], []).append(vector)
        return {rowid: np.stack(rows) for rowid, rows in grouped.items()}

    def _stored(self, rowids: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """(vector ids, float32 vectors) of the records' passages, read from SQLite:
        the index may hold them quantized."""
        model, dim = read_meta(self.db, "model"), read_meta(self.db, "dim")
        if model is None or dim is None or not rowids:
            return np.zeros(0, dtype=np.int64), np.zeros((0, int(dim or 1)), dtype=np.float32)
        return self.cache.passage_vectors(rowids, model, int(dim))

    def whole_vectors_of(self, rowids: list[int], model: str) -> dict[int, np.ndarray]:
        """As ``whole_vectors``, from the records' passage rows alone (no record read): the whole
        text is passage 0, or 1 after a title (``Record.passages``), unless the title is all of it."""
        heads = (
            "SELECT p.rowid, p.idx = (trim(r.title, ' \t\n\r') != ''), p.content_hash FROM passages p"
            " JOIN records r ON r.rowid = p.rowid WHERE p.idx <= 1 AND p.rowid IN ({marks})"
        )
        rows = list(select_in_chunks(self.db, heads, sorted(set(rowids))))
        # One lookup by hash, not a join: SQLite's join over the vectors took 50 times as long.
        sql = "SELECT content_hash, vector FROM vectors WHERE model = ? AND content_hash IN ({marks})"
        vectors = dict(select_in_chunks(self.db, sql, sorted({row[2] for row in rows}), before=[model]))
        found: dict[int, np.ndarray] = {}
        for rowid, _, content_hash in sorted(rows, key=lambda row: row[1]):  # the expected passage last
            if content_hash in vectors:
                found[rowid] = np.frombuffer(vectors[content_hash], dtype=np.float32)
        return found

    def whole_vectors(self, records: dict[int, Record], model: str) -> dict[int, np.ndarray]:
        """rowid → the vector of its whole-record passage (``Record.embed_text``),
        read from SQLite by content hash: one vector per record, none of the
        title and claim passages."""
        by_hash: dict[str, list[int]] = {}
        for rowid, record in records.items():
            by_hash.setdefault(text_hash(record.embed_text()), []).append(rowid)
        found: dict[int, np.ndarray] = {}
        sql = "SELECT content_hash, vector FROM vectors WHERE model = ? AND content_hash IN ({marks})"
        for content_hash, blob in select_in_chunks(self.db, sql, sorted(by_hash), before=[model]):
            vector = np.frombuffer(blob, dtype=np.float32)
            found.update((rowid, vector) for rowid in by_hash[content_hash])
        return found

    def vector_ids(self, rowids: list[int]) -> np.ndarray:
        sql = f"SELECT {VECTOR_ID} FROM passages p WHERE p.rowid IN ({{marks}})"
        return np.array([r[0] for r in select_in_chunks(self.db, sql, rowids)], dtype=np.int64)

    def missing_hashes(self, hashes: Iterable[str], model: str) -> set[str]:
        """The content hashes that have no ``model`` vector yet."""
        wanted = set(hashes)
        sql = "SELECT content_hash FROM vectors WHERE model = ? AND content_hash IN ({marks})"
        present = {r[0] for r in select_in_chunks(self.db, sql, sorted(wanted), before=[model])}
        return wanted - present

    def passages_without_vector(self, model: str) -> int:
        sql = (
            "SELECT count(*) FROM passages p WHERE NOT EXISTS "
            "(SELECT 1 FROM vectors v WHERE v.model = ? AND v.content_hash = p.content_hash)"
        )
        return int(self.db.execute(sql, (model,)).fetchone()[0])

    def stored_dim(self, model: str) -> int | None:
        """The dimension of ``model``'s stored vectors, if any are stored."""
        row = self.db.execute("SELECT length(vector) FROM vectors WHERE model = ? LIMIT 1", (model,)).fetchone()
        return int(row[0]) // np.dtype(np.float32).itemsize if row else None  # stored as float32

    def passage_vector_ids(self) -> np.ndarray:
        """The vector id of every passage in the database (what the cache must hold)."""
        return np.fromiter((r[0] for r in self.db.execute(f"SELECT {VECTOR_ID} FROM passages p")), dtype=np.int64)


@dataclass(frozen=True)
class StoredVectors:
    """Some records' float32 passage vectors as SQLite holds them, in vector id
    order, whichever order they were read in: a record's scores are then the
    same to the last bit whether its vectors were read alone or among others'
    (a product's rounding may depend on the rows around it)."""

    ids: np.ndarray
    rows: np.ndarray

    @classmethod
    def of_rows(cls, ids: np.ndarray, rows: np.ndarray) -> StoredVectors:
        order = np.argsort(ids, kind="stable")
        return cls(ids[order], rows[order])

    def joined(self, other: StoredVectors) -> StoredVectors:
        return StoredVectors.of_rows(np.concatenate([self.ids, other.ids]), np.concatenate([self.rows, other.rows]))

    def of(self, rowids: Iterable[int]) -> StoredVectors:
        """Only the passages of ``rowids``."""
        keep = np.isin(vector_rowids(self.ids), np.fromiter(rowids, dtype=np.int64))
        return StoredVectors(self.ids[keep], self.rows[keep])

    def scores(self, rowids: list[int], query: np.ndarray) -> list[tuple[int, float, int]]:
        """(rowid, best passage score, passage number) of ``rowids``, in their order; those without vectors left out."""
        wanted = self.of(rowids)
        best = best_per_record(wanted.rows @ np.asarray(query, dtype=np.float32), wanted.ids)
        order = {r: i for i, r in enumerate(rowids)}
        return sorted(best, key=lambda row: order[row[0]])


def best_per_record(scores: np.ndarray, vector_ids: np.ndarray) -> list[tuple[int, float, int]]:
    """Group passage hits by record, keeping each record's best; best first."""
    best: dict[int, tuple[float, int]] = {}
    for score, vid in zip(scores.tolist(), vector_ids.tolist(), strict=True):
        if vid < 0:
            continue
        rowid, idx = unpack_vector_id(vid)
        if rowid not in best or score > best[rowid][0]:
            best[rowid] = (float(score), idx)
    ranked = sorted(best.items(), key=lambda item: -item[1][0])
    return [(rowid, score, idx) for rowid, (score, idx) in ranked]
