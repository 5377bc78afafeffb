"""What ``Checker`` reads of the items before it compares them: the items embedded
(``Reading``), and the judge's token vectors it gives the texts the aligned decision
reads (``DedupeConfig.aligned_same_item``), the items' and their nearest candidates'.
``explain`` reads a pair through them, with the items check itself embedded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import kbsearch.runtime.timings as timings
from kbsearch.dedupe.rules import Embedded
from kbsearch.embed import Encoder, TokenEncoder
from kbsearch.records import Record

NO_TOKENS = np.zeros((0, 1), dtype=np.float32)
"""A record's token vectors when its text is too long for the aligned decision."""


@dataclass(frozen=True)
class Reading:
    """An input's items as a check embedded them (``Checker.reading``)."""

    items: list[Embedded]
    judged: Callable[[], None]
    """Gives the items the judge's vector and token vectors (once), read after the candidates' search."""
    resubmitted: list[str]
    """Ids of the items stored with their very content: this submission, accepted before."""


def judge_vectors_of(judge: Encoder | None, items: list[Record]) -> list[np.ndarray | None]:
    """The judge's vector of each item's whole text (all None without a judge)."""
    if judge is None or not items:
        return [None] * len(items)
    with timings.phase("judge items"):
        return list(judge.encode([item.embed_text() for item in items]))


class TokenVectors:
    """The token encoder's rows of whole texts, for one check (None: it reads none)."""

    def __init__(self, tokens: TokenEncoder | None, max_tokens: int) -> None:
        self.tokens = tokens
        self.max_tokens = max_tokens

    def of(self, texts: list[str]) -> list[np.ndarray | None]:
        """The judge's token vectors of each text; none (an empty array) for a
        text longer than the aligned decision was fitted on, so its pairs are
        decided by ``same_item``; all None without a token encoder."""
        if self.tokens is None or not texts:
            return [None] * len(texts)
        with timings.phase("judge tokens"):
            counts = self.tokens.count_tokens(texts)
            fitting = [t for t, n in zip(texts, counts, strict=True) if n <= self.max_tokens]
            vectors = dict(zip(fitting, self.tokens.encode_tokens(fitting), strict=True))
        return [vectors.get(text, NO_TOKENS) for text in texts]

    def give(self, records: list[Embedded]) -> None:
        """Give each record the judge's token vectors of its whole text, once."""
        lacking = [e for e in records if e.judge_tokens is None]
        for embedded, tokens in zip(lacking, self.of([e.whole_text for e in lacking]), strict=True):
            embedded.judge_tokens = tokens


def to_align(item: Embedded, known: list[Embedded], cap: int | None) -> list[Embedded]:
    """The candidates whose pairs with ``item`` the aligned decision reads: the
    ``cap`` (``aligned_candidates``) nearest by the judge's cosine (the encoder's without one);
    of one cosine, by id (``ties``): a record of the same text as another is aligned with it or not at all."""
    if cap is None or len(known) <= cap:
        return known

    def nearness(k: Embedded) -> float:
        if item.judge is not None and k.judge is not None:
            return float(item.judge @ k.judge)
        return float(item.whole @ k.whole)

    return sorted(known, key=lambda k: (-nearness(k), k.record.id))[:cap]
