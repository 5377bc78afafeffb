"""Each side's candidates for one hybrid search: the dense side's records
nearest to the query's vector, the lexical side's best matches and the
records holding the query's rare names.

The dense side's index walk runs beside the lexical side (``_DENSE_SIDE``).
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from kbsearch.embed import Encoder
from kbsearch.responses import SearchMode
from kbsearch.runtime.blas import beside_other_work
from kbsearch.search.exact import Pins
from kbsearch.search.expansion import retrieval
from kbsearch.search.fusion import Fusion
from kbsearch.store import SearchFilter, Store
from kbsearch.store.lexical import QueryTerms
from kbsearch.store.vector_search import DenseSearch
from kbsearch.text.neutral import MIN_NEUTRAL_TERMS

# The query's embedding and the index walk run on one of these threads while
# the lexical side runs on the caller's: FTS5, numpy's products and faiss
# release the GIL, so on two cores a hybrid search costs about the longer of
# the two, not their sum. No SQLite is read there (the connection belongs to
# the caller's thread): what the walk needs from it is read first.
_DENSE_SIDE = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2), thread_name_prefix="kbsearch-dense-side")


@dataclass
class Candidates:
    """Each side's best records for one query, already filtered."""

    dense: list[tuple[int, float, int]]
    """(rowid, cosine of the best passage, that passage's number), best first."""
    lexical: list[tuple[int, float]]
    """(rowid, lexical score), best first."""
    named: dict[str, list[int]] = field(default_factory=dict)
    """The query's rare coined names → the records holding them (hybrid only)."""
    neutral: list[int] = field(default_factory=list)
    """The best matches of the query's neutral terms alone (B200, 57%: ``text.neutral``; hybrid only)."""


def gather(
    store: Store,
    terms: QueryTerms,
    vector: np.ndarray | None,
    flt: SearchFilter,
    mode: SearchMode,
    k: int,
    fusion: Fusion,
) -> Candidates:
    """Each side's candidates, one after the other: k for a single mode, ``fusion.depth`` (at least k) for hybrid."""
    found = gather_lexical(store, terms, flt, mode, k, fusion)
    if vector is not None and mode is not SearchMode.lexical:
        found.dense = store.search_records(vector, depth_of(k, mode, fusion), flt)
    return found


def gather_lexical(
    store: Store, terms: QueryTerms, flt: SearchFilter, mode: SearchMode, k: int, fusion: Fusion
) -> Candidates:
    """The lexical side's candidates (and the records holding the query's rare names); no dense ones yet."""
    wider = retrieval(terms)  # and the other forms of its standard terms (search.expansion)
    lexical = store.lexical_search(wider, depth_of(k, mode, fusion), flt) if mode is not SearchMode.dense else []
    wanted = terms.names + terms.words
    named = store.records_with_names(wanted, flt) if mode is SearchMode.hybrid and fusion.name_weight else {}
    return Candidates(dense=[], lexical=lexical, named=named, neutral=_neutral_side(store, terms, flt, mode, k, fusion))


def _neutral_side(
    store: Store, terms: QueryTerms, flt: SearchFilter, mode: SearchMode, k: int, fusion: Fusion
) -> list[int]:
    """The best matches of the query's neutral terms alone, when it holds enough of them and other
    terms too: mixed with a dozen Chinese trigrams (or English words), the B200, DeepSeek-V4 and
    57% of a record in the other language weighed too little for the lexical side's top 50."""
    neutral = set(terms.neutral)
    if mode is not SearchMode.hybrid or len(neutral) < MIN_NEUTRAL_TERMS or neutral >= set(terms.all()):
        return []
    alone = QueryTerms([t for t in terms.long if t in neutral], [t for t in terms.short if t in neutral])
    return [rowid for rowid, _ in store.lexical_search(alone, depth_of(k, mode, fusion), flt)]


def depth_of(k: int, mode: SearchMode, fusion: Fusion) -> int:
    return k if mode is not SearchMode.hybrid else max(k, fusion.depth)


@dataclass
class DenseSide:
    """The dense side of one search, its query vector and index walk on a
    ``_DENSE_SIDE`` thread; ``result`` waits for them and re-scores exactly on
    the caller's thread."""

    search: DenseSearch
    walk: Future[tuple[np.ndarray, list[tuple[int, float, int]]]]
    depth: int

    def result(self) -> tuple[np.ndarray, list[tuple[int, float, int]]]:
        """(the query's vector, the depth best records as (rowid, cosine, passage number))."""
        vector, nearest = self.walk.result()
        return vector, self.search.rescored(nearest, vector, self.depth)


def dense_side(
    store: Store,
    encoder: Encoder | None,
    query: str,
    vector: np.ndarray | None,
    flt: SearchFilter,
    mode: SearchMode,
    depth: int,
) -> DenseSide | None:
    """The dense side, started beside the caller (see ``_DENSE_SIDE``); None in lexical mode."""
    if mode is SearchMode.lexical:
        return None
    if encoder is None and vector is None:
        raise ValueError(f"{mode} search needs an encoder or a query vector")
    search = store.dense_search(flt)

    def walk() -> tuple[np.ndarray, list[tuple[int, float, int]]]:
        with beside_other_work() if mode is SearchMode.hybrid else nullcontext():
            wanted = vector if vector is not None else cast(Encoder, encoder).encode([query])[0]
        return wanted, search.nearest(wanted, depth)

    return DenseSide(search, _DENSE_SIDE.submit(walk), depth)


def add_pinned(store: Store, found: Candidates, pins: Pins, terms: QueryTerms, vector: np.ndarray | None) -> None:
    """Give pinned records the search missed their score, so that they are
    scored like the others: their cosine, or without a vector (lexical mode)
    their lexical score, when they match a term of the query at all (one
    matching none has no score to show: ``render`` prints none)."""
    if vector is not None:
        have = {rowid for rowid, _, _ in found.dense}
        missing = [r for r in pins.rowids() if r not in have]
        if missing:
            found.dense = sorted(found.dense + store.score_records(missing, vector), key=lambda row: -row[1])
        return
    listed = {rowid for rowid, _ in found.lexical}
    missing = [r for r in pins.rowids() if r not in listed]
    if missing:
        found.lexical = sorted(found.lexical + store.lexical_scores(retrieval(terms), missing), key=lambda row: -row[1])
