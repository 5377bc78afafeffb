"""The judge's vectors of known records' passages, kept across checks.

A check embeds every passage of each record it judged the same item, to
read which of the item's claims those passages say (``Checker._judged_claims``).
A warm process (``serve``, the TUI) checks one briefing after another
against the same few known records, and re-embedding them was most of a
repeat check's time. The vectors are kept per judge, per record's passages
as one batch: an int8 model's vectors depend on which texts share a batch,
so a kept record gives exactly what embedding it again would.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from kbsearch.embed import Encoder
from kbsearch.runtime.kept_rows import KeptRows

MAX_ROWS = 20_000
"""Passage vectors kept per judge (384-d float32 for e5: about 30 MB), the
least recently read let go first: some 4,000 records of five passages."""


class JudgedPassages:
    """One judge's passage vectors, by the passages of one record, least recently read let go first."""

    def __init__(self, judge: Encoder, max_rows: int = MAX_ROWS) -> None:
        self.judge = judge
        self._kept: KeptRows[tuple[str, ...]] = KeptRows(max_rows)
        self._lock = threading.Lock()

    def vectors(self, passages: list[str]) -> np.ndarray:
        key = tuple(passages)
        with self._lock:
            found = self._kept.get(key)
        if found is not None:
            return found
        vectors = self.judge.encode(passages)  # outside the lock: another check's hits need not wait
        with self._lock:
            self._kept.put(key, vectors)
        return vectors


_BY_JUDGE: weakref.WeakKeyDictionary[Encoder, JudgedPassages] = weakref.WeakKeyDictionary()
_GUARD = threading.Lock()


def judged_passages(judge: Encoder) -> JudgedPassages:
    """The kept passage vectors of ``judge``, for as long as the judge itself lives."""
    with _GUARD:
        kept = _BY_JUDGE.get(judge)
        if kept is None:
            kept = _BY_JUDGE[judge] = JudgedPassages(judge)
        return kept
