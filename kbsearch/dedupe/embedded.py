"""A record as the rules read it: its passages with their vectors, and what the
features need of it (names, numbers, tokens), computed once per record.

``check`` and ``audit`` load each candidate once and compare it with many items,
so everything here is a cached property of the record and its vectors; what its
text alone gives (names, numbers, clauses, the titles' subjects) is ``record_text``'s,
shared by the copies a warm process hands each check."""

from __future__ import annotations

import copy
import sys
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from kbsearch.dedupe.background import own_rows, stated
from kbsearch.dedupe.citations import without_citations
from kbsearch.dedupe.features import Side
from kbsearch.dedupe.record_text import RecordText
from kbsearch.records import Record
from kbsearch.text.spelled import halves_unread
from kbsearch.text.textsim import language, lexical_tokens, substantive_numbers


@dataclass
class Embedded(RecordText):
    """A record with one unit vector per passage (``Record.passages()`` order),
    and the judge's vector of its whole text when there is a judge."""

    record: Record
    vectors: np.ndarray
    passages: list[str] = field(default_factory=list)
    judge: np.ndarray | None = None
    judge_tokens: np.ndarray | None = None
    """The judge's token vectors of the whole text, when check reads them
    (no rows: a text longer than ``DedupeConfig.aligned_max_tokens``)."""

    def __post_init__(self) -> None:
        self._shared: dict[str, Any] = {}  # the text_property values, shared by the copies
        if not self.passages:
            self.passages = self.record.passages()
        self.whole_text = self.record.embed_text()
        self.language = language(self.whole_text)
        # Audit holds every record's tokens at once: one frozenset, shared with
        # ``side``, of interned strings (a bigram recurs across thousands of records).
        self.tokens = frozenset(map(sys.intern, lexical_tokens(self.whole_text)))
        # A figure given only with an earlier day's citation ("53.1%, 11-03锚定"), or only in a
        # key point that recalls another item as background (``background``), is not stated here.
        self.background = self.background_points
        text = stated(self._text_and_claims, self.background)
        self.numbers = substantive_numbers(halves_unread(without_citations(text)))
        self._features: dict[int, tuple[str, set[str]]] = {}

    def passage_features(self, index: int) -> tuple[str, set[str]]:
        """(language, lexical tokens) of one passage, computed once."""
        if index not in self._features:
            text = self.passages[index]
            self._features[index] = (language(text), lexical_tokens(text))
        return self._features[index]

    def is_key_point(self, index: int) -> bool:
        """Whether the passage is one of the writer's own key points (要点), not the
        title, the whole text or a sentence cut from it."""
        return index < len(self.passages) and self.passages[index] in self._key_points

    def stating(self, index: int, cosine: float, vector: np.ndarray) -> tuple[int, float]:
        """The passage at ``index`` with its cosine to ``vector``, or when that is the title
        alone, the nearest of the others: a title names its item, and says no fact that
        another item's claim could repeat ("An Internet for the KV Cache" for HydraKV's)."""
        others = self._body_indices
        if index in others or not others:
            return index, cosine
        cosines = self.vectors[others] @ vector
        best = int(np.argmax(cosines))
        return others[best], float(cosines[best])

    def facts(self, cosines: np.ndarray) -> list[tuple[int, float]]:
        """(index, cosine) of each passage but the title alone (``cosines``: one per passage): a
        title names its item and says none of its facts, its own item's claims neither (probe
        39: a same-item record's title "Korvex 0.9.0 发布…" made a correction's cause known)."""
        return [(i, float(cosines[i])) for i in self._body_indices]

    @classmethod
    def whole_only(cls, record: Record, whole: np.ndarray, judge: np.ndarray | None = None) -> Embedded:
        """A record with only its whole-record vectors: all that ``compare`` reads.
        ``audit`` uses it to avoid loading every title and claim vector."""
        text = record.embed_text()
        return cls(record, np.asarray(whole, dtype=np.float32)[None, :], [text], judge)

    def with_passages(self, vectors: np.ndarray) -> Embedded:
        """This record with every passage's vector (``Record.passages()`` order), keeping what was
        computed of its text: audit reads a pair again by its key points (``key_points``)."""
        full = copy.copy(self)
        for name in ("whole", "claim_rows", "body_rows", "own_claim_rows", "own_body_rows", "_body_indices", "side"):
            full.__dict__.pop(name, None)  # computed from the vectors: computed again
        full.vectors, full.passages, full._features = vectors, self.record.passages(), {}
        return full

    @cached_property
    def whole(self) -> np.ndarray:
        """The whole-record vector (looked up once: ``compare`` reads it for every pair)."""
        index = self.passages.index(self.whole_text) if self.whole_text in self.passages else 0
        return self.vectors[index]

    @cached_property
    def _body_indices(self) -> list[int]:
        """The passages but the title alone: the whole text and each key point."""
        title = self.record.title.strip()
        return [i for i, text in enumerate(self.passages) if text != title or text == self.whole_text]

    @cached_property
    def body_rows(self) -> np.ndarray:
        """The passage vectors but the title's: the whole text and each key point."""
        rows = self._body_indices
        return self.vectors[rows] if rows else self.whole[None, :]

    @cached_property
    def claim_rows(self) -> np.ndarray | None:
        """The key points' passage vectors; None without key points or their vectors (``whole_only``)."""
        claims = set(self.record.claim_texts()) if self.record.claims else set()
        return self._rows_of(claims)

    @cached_property
    def own_claim_rows(self) -> np.ndarray | None:
        """``claim_rows`` without the key points that recall another item as background
        (``background``): what the same-item features read."""
        if self.claim_rows is None or not self.background:
            return self.claim_rows
        own = self._rows_of(set(self.record.claim_texts()) - self.background)
        return self.claim_rows if own is None else own

    def _rows_of(self, claims: set[str]) -> np.ndarray | None:
        """The passage vectors of these key points (not the whole text's), or None for none."""
        rows = [i for i, text in enumerate(self.passages) if text in claims and text != self.whole_text]
        return self.vectors[rows] if rows else None

    @cached_property
    def own_body_rows(self) -> np.ndarray:
        """``body_rows`` without the background key points: the passages the other record's
        key points are matched against when deciding whether the two are one item."""
        if not self.background or not self._body_indices:
            return self.body_rows
        return self.vectors[own_rows(self.passages, self._body_indices, self.background)]

    @cached_property
    def side(self) -> Side:
        """What the same-item features read of this record."""
        return Side(
            vector=self.whole,
            judge=self.judge,
            language=self.language,
            tokens=self.tokens,
            names=self.names - self._cited_context,
            numbers=frozenset(self.numbers),
            length=len(self.whole_text),
        )
