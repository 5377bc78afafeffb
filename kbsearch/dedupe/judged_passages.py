"""The judge's vectors of known records' passages, kept across checks.

A check embeds every passage of each record it judged the same item, to
read which of the item's claims those passages say (``Checker._judged_claims``).
A warm process (``serve``, the TUI) checks one briefing after another
against the same few known records, and re-embedding them was most of a
repeat check's time. The vectors are kept per judge, per record's passages
as one batch: an int8 model's vectors depend on which texts share a batch,
so a kept record gives exactly what embedding it again would.

A built-in judge's batches are kept on disk too, float32 as encoded
(``kbsearch.embed.passage_disk``), so that a new process (a cold check, the
next day's server) reads them; the fill after an ingest
(``kbsearch/kb/token_fill.py``) puts the newest records' there.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING

import numpy as np

from kbsearch.embed import Encoder, passage_disk
from kbsearch.runtime.kept_rows import KeptRows

if TYPE_CHECKING:
    from kbsearch.embed.token_disk import DiskTokens

MAX_ROWS = 20_000
"""Passage vectors kept per judge (384-d float32 for e5: about 30 MB), the
least recently read let go first: some 4,000 records of five passages."""


class JudgedPassages:
    """One judge's passage vectors, by the passages of one record, least recently read let go first."""

    def __init__(self, judge: Encoder, max_rows: int = MAX_ROWS, disk: DiskTokens | None = None) -> None:
        self.judge = judge
        self.disk = disk
        self._kept: KeptRows[tuple[str, ...]] = KeptRows(max_rows)
        self._lock = threading.Lock()

    def vectors(self, passages: list[str]) -> np.ndarray:
        key = tuple(passages)
        with self._lock:
            found = self._kept.get(key)
        if found is not None:
            return found
        vectors = self._read_or_encode(passages)  # outside the lock: another check's hits need not wait
        with self._lock:
            self._kept.put(key, vectors)
        return vectors

    def _read_or_encode(self, passages: list[str]) -> np.ndarray:
        batch = disk_key(passages)
        on_disk = self.disk.get([batch]) if self.disk is not None else {}
        if batch in on_disk and len(on_disk[batch]) == len(passages):
            return np.array(on_disk[batch])
        vectors = self.judge.encode(passages)
        if self.disk is not None:
            self.disk.put({batch: vectors})
        return vectors


def disk_key(passages: list[str]) -> str:
    """One text naming one batch of passages (a passage's own text could not)."""
    return "\x1f".join([str(len(passages)), *passages])


_BY_JUDGE: weakref.WeakKeyDictionary[Encoder, JudgedPassages] = weakref.WeakKeyDictionary()
_GUARD = threading.Lock()


def judged_passages(judge: Encoder) -> JudgedPassages:
    """The kept passage vectors of ``judge``, for as long as the judge itself lives."""
    with _GUARD:
        kept = _BY_JUDGE.get(judge)
        if kept is None:
            kept = _BY_JUDGE[judge] = JudgedPassages(judge, disk=passage_disk(judge))
        return kept
