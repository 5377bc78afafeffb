"""The write path: a change set applied in one SQLite transaction.

Records, their passages, vectors, arXiv ids, FTS rows, references and id
mentions are written together and the generation is bumped, or nothing is
(a failed or killed write leaves the last committed state). Only then is the
vector cache updated and saved; a crash before that leaves a stale cache
stamp, which the next open notices and rebuilds from SQLite.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import time
from array import array
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

import kbsearch.runtime.timings as timings
import kbsearch.store.background as background
import kbsearch.store.lexical_merge as lexical_merge
import kbsearch.store.lexical_rows as lexical_rows
import kbsearch.store.migrations as migrations
import kbsearch.store.passages as passages
import kbsearch.store.remote_vectors as remote_vectors
import kbsearch.store.row_digests as row_digests
import kbsearch.store.skips as skips
from kbsearch.records import IdMention, Record, text_hash
from kbsearch.store.binding import bind_judge
from kbsearch.store.database import read_only_error, write_error
from kbsearch.store.lexical_counts import PendingCounts
from kbsearch.store.skips import RememberedSkip
from kbsearch.store.sql import VECTOR_ID, chunks, write_meta

REBUILD_BELOW = 50_000
"""An ingest whose new or changed records outnumber the vectors the index
holds, and number at least this many, rebuilds the index from SQLite in one
streamed build instead of adding to it a chunk at a time."""

if TYPE_CHECKING:
    from kbsearch.store.facade import Store
    from kbsearch.vector_index import VectorIndex


@dataclass
class JudgeVectors:
    """The judge's vectors of whole record texts (hash → vector), and its name."""

    model: str
    batches: Iterable[dict[str, np.ndarray]] = ()


@dataclass
class ChangeSet:
    """One write transaction's worth of changes."""

    upserts: list[Record] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    """Record id → the file it was read from (its ``source`` may name an upstream origin)."""
    deletes: list[str] = field(default_factory=list)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    mentions: dict[str, list[IdMention]] = field(default_factory=dict)
    renames: dict[str, str] = field(default_factory=dict)
    """Old id → new id, applied before the upserts: the same stored record
    under the id its file now gives it (its row, passages and vectors kept)."""
    judge: JudgeVectors | None = None
    """With upserts: the index's judge and the vectors its new texts lacked
    (None: the records are written for an index without a judge)."""
    skips: list[RememberedSkip] = field(default_factory=list)
    """DUPLICATEs an accept left out, remembered with its records (``store.skips``)."""
    forget_skips: list[str] = field(default_factory=list)
    """Ids whose remembered skip goes: they are stored now, or were given again in other text."""
    more: Iterable[ChangeSet] = ()
    """Further parts, produced while the transaction runs: ingest plans and
    embeds a bulk input chunk by chunk into it, so a million records and their
    vectors are never all in memory. Still one transaction."""

    def parts(self) -> Iterator[ChangeSet]:
        """This change set's own changes, then those of each further part, flat."""
        yield replace(self, more=())
        for part in self.more:
            yield from part.parts()

    def is_empty(self) -> bool:
        return not (self.upserts or self.deletes or self.mentions or self.renames)


class _Ids:
    """Row or vector ids gathered over a transaction, 8 bytes each."""

    def __init__(self) -> None:
        self._values = array("q")

    def extend(self, values: Iterable[int]) -> None:
        self._values.extend(values)

    def numpy(self) -> np.ndarray:
        return np.frombuffer(self._values, dtype=np.int64).copy() if self._values else np.zeros(0, dtype=np.int64)


@contextmanager
def transaction(store: Store) -> Iterator[sqlite3.Connection]:
    """All or nothing: a failed or killed write leaves the last committed state."""
    db = store.db
    if store.read_only:
        raise read_only_error(store.root)
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as err:
        raise write_error(err, store.root) from err
    try:
        yield db
        db.execute("COMMIT")
    except BaseException as err:
        if db.in_transaction:
            db.execute("ROLLBACK")
        if isinstance(err, sqlite3.OperationalError):
            raise write_error(err, store.root) from err
        raise


def apply(store: Store, changes: ChangeSet, model: str) -> bool:
    """Write records, vectors and mentions in one transaction, then refresh
    the vector cache. False when there was nothing to write: no new
    generation, and a cache a killed run left behind is repaired instead."""
    remote = store.cache.remote
    index = store.vector_index if store.count() and remote is None else None
    if index is not None and store.cache.shared is not None:
        index = index.copy()  # other readers search the shared one while this one changes
    dropped, fresh, written = _Ids(), _Ids(), _Ids()
    wrote, before, fts_changes = False, store.generation, 0
    # Planning and embedding the parts, pulled inside, are phases of their own.
    with timings.phase("write"), transaction(store) as db:
        store.require_model(model)
        passages.require_current(db, store.root)
        wanted = store.cache.wanted
        if wanted is not None and wanted.remote and remote_vectors.stored_choice(db) is None:
            remote_vectors.record_choice(db, wanted)  # the first write chooses, with its records
        for part in changes.parts():
            _bind_judge(store, model, part)
            if part.vectors:
                _bind_model(store, model, next(iter(part.vectors.values())).shape[-1])
                _put_vectors(db, part.vectors, model)
            if part.judge is not None:
                for batch in part.judge.batches:
                    _put_vectors(db, batch, part.judge.model)
            if not part.is_empty():
                wrote = True
                counts = PendingCounts()
                dropped.extend(_delete(db, part.deletes, counts))
                db.executemany("UPDATE records SET id = ? WHERE id = ?", [(b, a) for a, b in part.renames.items()])
                replaced, new, every = _upsert(db, part.upserts, part.files, counts)
                if any(record.first_date is not None for record in part.upserts):
                    migrations.mark_first_dates(db)  # an older kbsearch must refuse the index, not fail on it
                if any(record.signed_at is not None for record in part.upserts):
                    migrations.mark_signed_times(db)
                counts.flush(db)  # one write per part: summed, the changes of 4,096 records are a few
                dropped.extend(replaced)
                fresh.extend(new)
                written.extend(every)
                fts_changes += len(every) + len(part.deletes)
                _replace_mentions(db, part.mentions)
            # Not records: remembering a skip bumps no generation (no search or vector reads it).
            skips.forget(db, part.forget_skips)
            skips.remember(db, part.skips)
            # Written: let the part's records and vectors go before the next one.
            part.upserts, part.vectors, part.judge = [], {}, None
        if wrote:
            _merge_fulltext(store, db, fts_changes)
            passages.stamp(db)
            write_meta(db, "generation", str(store.generation + 1))
            write_meta(db, "last_ingest", dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    with timings.phase("vector index"):
        if wrote and (remote := store.cache.remote) is not None and store.dim is not None:
            # Every record written, not only those with new text: its kind, topic
            # or date may have changed, and the collection filters on them.
            remote.after_write(dropped.numpy(), written.numpy(), model, store.dim, before)
        elif wrote:
            _refresh_index(store, index, dropped.numpy(), fresh.numpy(), model)
        else:
            store.repair_cache()
    return wrote


MERGE_NOTE_SECONDS = 1.0
"""A merge this long is told: it made the ingest that long for a reason."""


def _merge_fulltext(store: Store, db: sqlite3.Connection, changed: int) -> None:
    started = time.perf_counter()
    if lexical_merge.after_write(db, changed) and (spent := time.perf_counter() - started) >= MERGE_NOTE_SECONDS:
        store.cache.notes.append(
            f"merged the full-text index into one segment in {spent:.1f}s, as a tenth of it had changed "
            "since the last merge: each search looks its words up once"
        )


def rebind_model(
    store: Store, model: str, vectors: dict[str, np.ndarray], dim: int, judge: JudgeVectors | None = None
) -> None:
    """Switch the whole index to another model and judge (``kbsearch reindex``)."""
    with transaction(store) as db:
        _put_vectors(db, vectors, model)
        if judge is not None:
            for batch in judge.batches:
                _put_vectors(db, batch, judge.model)
        passages.rechoose(db, _write_passages)
        write_meta(db, "model", model)
        write_meta(db, "dim", str(dim))
        bind_judge(db, judge.model if judge is not None else None)
        write_meta(db, row_digests.REBOUND_KEY, str(store.generation + 1))  # the texts may be embedded again
        write_meta(db, "generation", str(store.generation + 1))
    store.cache.replace(store.cache.from_database(model, dim))


def _bind_judge(store: Store, model: str, part: ChangeSet) -> None:
    """New records must come with the vectors of the index's own judge (or none):
    a record without one could not be judged, nor one of another scale."""
    if part.upserts:
        judge = part.judge.model if part.judge is not None else None
        store.require_judge(model, judge)
        bind_judge(store.db, judge)


def _bind_model(store: Store, model: str, dim: int) -> None:
    if store.model != model:
        write_meta(store.db, "model", model)
        write_meta(store.db, "dim", str(dim))


def _put_vectors(db: sqlite3.Connection, vectors: dict[str, np.ndarray], model: str) -> None:
    # A generator: a list would hold a second copy of every vector (200 MB at 100k texts).
    db.executemany(
        "INSERT OR REPLACE INTO vectors(model, content_hash, vector) VALUES (?, ?, ?)",
        ((model, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in vectors.items()),
    )


def _delete(db: sqlite3.Connection, record_ids: list[str], counts: PendingCounts) -> list[int]:
    """Deletes records; returns the vector ids they had."""
    dropped: list[int] = []
    for record_id in record_ids:
        row = db.execute("SELECT rowid FROM records WHERE id = ?", (record_id,)).fetchone()
        if row:
            dropped += _vector_ids(db, row[0])
            lexical_rows.delete(db, row[0], counts)
            db.execute("DELETE FROM records WHERE rowid = ?", (row[0],))
    return dropped


def _upsert(
    db: sqlite3.Connection, records: list[Record], files: dict[str, str], counts: PendingCounts
) -> tuple[list[int], list[int], list[int]]:
    """Returns (vector ids to drop, rowids whose passages are new, every rowid written)."""
    dropped: list[int] = []
    fresh: list[int] = []
    every: list[int] = []
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    for record in records:
        old = db.execute("SELECT rowid, content_hash FROM records WHERE id = ?", (record.id,)).fetchone()
        values = (*_record_row(record), files.get(record.id, record.source))
        if old is None:
            rowid = int(
                db.execute(
                    "INSERT INTO records(id, kind, title, text, date, instance, topic, category, section, source, "
                    "position, content_hash, data, file, ingested_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (record.id, *values, now),
                ).lastrowid
                or 0
            )
            _write_passages(db, rowid, record)
            fresh.append(rowid)
        else:
            rowid = old[0]
            db.execute(
                "UPDATE records SET kind=?, title=?, text=?, date=?, instance=?, topic=?, category=?, section=?, "
                "source=?, position=?, content_hash=?, data=?, file=?, ingested_at=? WHERE rowid=?",
                (*values, now, rowid),
            )
            if old[1] != record.content_hash:
                dropped += _vector_ids(db, rowid)
                _write_passages(db, rowid, record)
                fresh.append(rowid)
        _write_arxiv(db, rowid, record)
        lexical_rows.write(db, rowid, record, counts)
        every.append(rowid)
    return dropped, fresh, every


def _vector_ids(db: sqlite3.Connection, rowid: int) -> list[int]:
    return [r[0] for r in db.execute(f"SELECT {VECTOR_ID} FROM passages p WHERE p.rowid = ?", (rowid,))]


def _record_row(record: Record) -> tuple[object, ...]:
    return (
        record.kind.value,
        record.title,
        record.text,
        record.date.isoformat() if record.date else None,
        record.instance,
        record.topic,
        record.category,
        record.section,
        record.source,
        record.position,
        record.content_hash,
        record.stored_json(),
    )


def _write_passages(db: sqlite3.Connection, rowid: int, record: Record) -> None:
    db.execute("DELETE FROM passages WHERE rowid = ?", (rowid,))
    db.executemany(
        "INSERT INTO passages(rowid, idx, content_hash) VALUES (?,?,?)",
        [(rowid, i, text_hash(t)) for i, t in enumerate(record.passages())],
    )


def _write_arxiv(db: sqlite3.Connection, rowid: int, record: Record) -> None:
    db.execute("DELETE FROM record_arxiv WHERE rowid = ?", (rowid,))
    rows = [(rowid, a, "subject") for a in record.arxiv_ids]
    rows += [(rowid, a, "cited") for a in record.cited_ids if a not in record.arxiv_ids]
    db.executemany("INSERT OR IGNORE INTO record_arxiv(rowid, arxiv_id, role) VALUES (?,?,?)", rows)


def _replace_mentions(db: sqlite3.Connection, mentions: dict[str, list[IdMention]]) -> None:
    for source, rows in mentions.items():
        db.execute("DELETE FROM id_mentions WHERE source = ?", (source,))
        db.executemany(
            "INSERT INTO id_mentions(source, position, arxiv_id, data) VALUES (?,?,?,?)",
            [(source, i, m.arxiv_id, m.model_dump_json()) for i, m in enumerate(rows)],
        )


def _refresh_index(store: Store, index: VectorIndex | None, drop: np.ndarray, add: np.ndarray, model: str) -> None:
    dim = store.dim
    if dim is None:
        return
    if index is None or index.dim != dim or len(add) > max(index.count, REBUILD_BELOW):
        # A bulk import into a small index: one streamed build from SQLite
        # beats growing the index a chunk at a time.
        index = store.cache.from_database(model, dim)
    else:
        index.remove(drop)
        for part in chunks(add.tolist(), 5_000):
            index.add(*store.cache.passage_vectors(list(part), model, dim))
    store.cache.replace(index)
    if index.needs_compaction and store.cache.params.background_compaction:
        background.start(store.root)  # this write does not wait for the compaction
