"""What one hybrid search reads of its candidates, each read once: their
stored passage vectors, their texts as the lexical index holds them, and the
language of each text.

The lexical side's candidates are known before the dense side's index walk
ends (the walk runs on another thread, ``candidates.dense_side``), so the
caller's thread reads theirs meanwhile (``read_ahead``) instead of waiting
idle; the dense side's own candidates, and those a re-ranking adds, are read
when first asked for. The scores are those ``Store.score_records`` gives, to
the last bit (``StoredVectors``).

What scores a record against the other candidates (the short terms' weights,
estimated from the candidates' texts, and the judge's baseline of each
language, ``search.judge_side``) is read once, by the search's first ranking,
and kept: a filtered search ranks the candidates of the search without the
filter's view part first (``hybrid._evidence``), so a filter, and the records
a later ranking adds (an item's siblings), change no record's score.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from kbsearch.records import EMBED_CHARS
from kbsearch.store import Store
from kbsearch.store.lexical import QueryTerms
from kbsearch.store.vector_search import StoredVectors
from kbsearch.text.textsim import language

if TYPE_CHECKING:
    from kbsearch.search.judge_side import JudgeQuery


class CandidateReads:
    """One search's reads of its candidates, kept for the rest of that search."""

    def __init__(self, store: Store, judge: JudgeQuery | None = None) -> None:
        self.store = store
        self.judge = judge  # the query as the judge model reads it (``search.judge_side``), if it has a say
        self._vectors: StoredVectors | None = None
        self._vectors_read: set[int] = set()
        self._parts: dict[int, tuple[str, str] | None] = {}  # None: not in the lexical index
        self._languages: dict[int, str] = {}
        self._judged: dict[int, float | None] = {}  # None: no judge vector stored (or of another size)
        self._weights: dict[str, float] | None = None
        self.judge_levels: dict[str | None, float] | None = None  # language → the judge's baseline (judge_side)
        self.foreign_best: tuple[float | None] | None = None  # the other language's best cosine (foreign_gap)

    def read_ahead(self, rowids: list[int]) -> None:
        """Read ``rowids``' vectors, texts and languages now, while nothing else can be done."""
        self._stored(rowids)
        for rowid in self.parts(rowids):
            self.language(rowid)

    def scores(self, rowids: list[int], query: np.ndarray) -> list[tuple[int, float, int]]:
        """As ``Store.score_records``: (rowid, best passage score, passage number), in ``rowids``' order."""
        return self._stored(rowids).scores(rowids, query)

    def parts(self, rowids: list[int]) -> dict[int, tuple[str, str]]:
        """As ``Store.lexical_parts``: row id → (title and body, meta), for those the lexical index holds."""
        missing = [r for r in dict.fromkeys(rowids) if r not in self._parts]
        if missing:
            found = self.store.lexical_parts(missing)
            self._parts.update((r, found.get(r)) for r in missing)
        return {r: parts for r in rowids if (parts := self._parts[r]) is not None}

    def term_weights(self, terms: QueryTerms, rowids: list[int]) -> dict[str, float]:
        """``Store.term_weights`` of the query's terms, a short term's estimated from the texts of
        ``rowids`` (the candidates) at the search's first call and kept (module docstring). A function
        word (with, and) counts in the whole as before, but is never found: keyed "\0" + the word."""
        if self._weights is None:
            sample = [f"{main}\n{meta}" for main, meta in self.parts(rowids).values()]
            weights = self.store.term_weights(terms, sample)
            unused = QueryTerms([w for w in terms.function if len(w) > 2], [w for w in terms.function if len(w) == 2])
            weights |= {"\0" + w: weight for w, weight in self.store.term_weights(unused, sample).items()}
            self._weights = weights
        return self._weights

    def language(self, rowid: int) -> str:
        """The language of the record's head, the part that is embedded (a record the lexical index holds)."""
        found = self._languages.get(rowid)
        if found is None:
            main, _ = self.parts([rowid])[rowid]
            found = self._languages[rowid] = language(main[:EMBED_CHARS])
        return found

    def judge_cosines(self, rowids: list[int]) -> dict[int, float]:
        """Row id → the judge's cosine of the query with the record's whole text: its stored vector, else
        the one computed now (an ingest left it to the fill: ``Store.judge_vectors``), so a ranking while
        the fill runs is the one after it; read once a search (its rankings read the same candidates again)."""
        assert self.judge is not None
        missing = [r for r in dict.fromkeys(rowids) if r not in self._judged]
        if missing:
            wanted = self.judge.resolved()
            vectors = self.store.judge_vectors(missing, self.judge.model)
            for rowid in missing:
                vector = vectors.get(rowid)
                self._judged[rowid] = (
                    float(vector @ wanted) if vector is not None and vector.shape == wanted.shape else None
                )
        return {r: cosine for r in rowids if (cosine := self._judged[r]) is not None}

    def language_or_none(self, rowid: int) -> str | None:
        """``language``, or None for a record the lexical index does not hold."""
        return self.language(rowid) if self.parts([rowid]) else None

    def _stored(self, rowids: list[int]) -> StoredVectors:
        missing = [r for r in dict.fromkeys(rowids) if r not in self._vectors_read]
        if missing or self._vectors is None:
            read = self.store.stored_vectors(missing)
            self._vectors = read if self._vectors is None else self._vectors.joined(read)
            self._vectors_read.update(missing)
        return self._vectors
