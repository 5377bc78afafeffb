"""The judge's whole-text vectors: stored, else embedded now; which records lack one; written late.

An ingest may leave a record's judge vector to the background fill
(``kbsearch/kb/judge_fill.py``), so a reader can meet a record without one
for a while. ``Store.judge_vectors`` is the one place every reader asks
(check, audit's roster and pair judging, related, a search's judge cosines):
it returns the stored vectors and, for a record lacking one, the vector the
index's judge gives its whole text now (``JudgeOnDemand``, set by the
facade that loaded the judge), the same text through the same encoder, so
a decision reads the same vector as the fill will write, to the bit: the
judge runs each text alone (``OnnxE5.encode``), so a vector does not depend
on what was embedded beside it. A reader writes nothing it computed: a check may run on a
read-only index, and without the writer lock; the fill writes them.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from kbsearch.records import Record, text_hash
from kbsearch.store.binding import kept_judge
from kbsearch.store.sql import chunks, select_in_chunks

if TYPE_CHECKING:
    from kbsearch.store.facade import Store
    from kbsearch.store.vector_search import VectorSearch

KEPT = 4_096
"""Vectors computed on demand kept in the process (384 floats each: 6 MB): a
server or the TUI asks again about the same candidates while the fill runs."""


@dataclass
class JudgeOnDemand:
    """The index's judge, to embed a whole text whose vector is not stored (yet)."""

    model: str
    encode: Callable[[list[str]], np.ndarray]
    """Loads the judge on first call (a reader that finds every vector stored never loads it)."""
    kept: OrderedDict[str, np.ndarray] = field(default_factory=OrderedDict)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()  # a server's requests run on threads of one process

    def vectors(self, texts: dict[str, str]) -> dict[str, np.ndarray]:
        """Hash → vector of each text (``texts``: hash → text), those not kept encoded in one call."""
        with self._lock:
            found = {h: self.kept[h] for h in texts if h in self.kept}
        todo = [h for h in texts if h not in found]
        if todo:
            encoded = self.encode([texts[h] for h in todo])  # outside the lock: another request goes on
            found |= {h: np.asarray(v, dtype=np.float32) for h, v in zip(todo, encoded, strict=True)}
        with self._lock:
            for h in texts:
                self.kept[h] = found[h]
                self.kept.move_to_end(h)
            while len(self.kept) > KEPT:
                self.kept.popitem(last=False)
        return found


def stored_else_now(
    store: Store, stored: VectorSearch, records: dict[int, Record] | list[int], judge: str
) -> dict[int, np.ndarray]:
    """rowid → the vector of its whole text by the judge ``judge``: stored, else the vector the
    store's judge on demand gives it now (without one of the same judge: left out, for the
    caller to name). Row ids alone are read from the passage rows (a search's candidates)."""
    if isinstance(records, list):
        found = stored.whole_vectors_of(records, judge)
    else:
        found = stored.whole_vectors(records, judge)
    on_demand = store.judge_on_demand
    lacking = [r for r in records if r not in found]
    if not lacking or on_demand is None or on_demand.model != judge:
        return found
    read = records if isinstance(records, dict) else store.by_rowids(lacking)
    texts = {r: read[r].embed_text() for r in lacking if r in read}
    computed = on_demand.vectors({text_hash(t): t for t in texts.values()})
    return found | {r: computed[text_hash(t)] for r, t in texts.items()}


# -- the fill's side ----------------------------------------------------------------------

LACKING = """
SELECT r.rowid FROM records r
WHERE NOT EXISTS (
    SELECT 1 FROM passages p JOIN vectors v ON v.model = ? AND v.content_hash = p.content_hash
    WHERE p.rowid = r.rowid AND p.idx <= 1
)
ORDER BY r.rowid DESC
"""
"""Records none of whose first two passages has a judge vector: the whole text is one of them
(``Record.passages``), so this holds every record lacking one (and is checked by hash after)."""


def lacking_texts(store: Store, judge: str, chunk: int = 2_000) -> Iterator[dict[str, str]]:
    """Hash → whole text of the records whose text has no ``judge`` vector, newest first,
    ``chunk`` records at a time: their row ids found in one snapshot, each chunk's records read
    as it comes (a bulk import's million would not fit at once; one removed meanwhile is passed)."""
    with store.snapshot():
        rowids = [rowid for (rowid,) in store.db.execute(LACKING, (judge,))]
    for some in chunks(rowids, chunk):
        texts = {text_hash(t): t for t in (r.embed_text() for r in store.by_rowids(some).values())}
        missing = store.missing_hashes(texts, judge)
        if missing:
            yield {h: t for h, t in texts.items() if h in missing}


def put_judge_vectors(db: sqlite3.Connection, judge: str, vectors: dict[str, np.ndarray]) -> int:
    """Write a fill's batch in the caller's transaction, if the index still keeps ``judge``'s
    vectors (a reindex may have dropped or changed its judge meanwhile): how many."""
    if kept_judge(db) != judge or not vectors:
        return 0
    sql = "SELECT content_hash FROM vectors WHERE model = ? AND content_hash IN ({marks})"
    present = {h for (h,) in select_in_chunks(db, sql, sorted(vectors), before=[judge])}
    db.executemany(
        "INSERT INTO vectors(model, content_hash, vector) VALUES (?, ?, ?)",
        ((judge, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in vectors.items() if h not in present),
    )
    return len(vectors) - len(present)
