"""The judge's view of the passages a claim is weighed against (``claims.judge_said``):
their vectors and token vectors, each read once, and how much of a claim a passage covers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from kbsearch.dedupe.judged_passages import judged_passages
from kbsearch.dedupe.rules import Embedded
from kbsearch.embed import Encoder, TokenEncoder


@dataclass
class PassageHit:
    """A known passage found for one claim of the item."""

    known: Embedded
    index: int
    cosine: float


class PassageReader:
    """The judge's view of the texts a check weighs claims against. A claim's vectors are
    read once per check; a known record's passages come from the process's kept judge
    vectors (``judged_passages``, one batch per record, shared with the cosine decision)
    and its kept token vectors, since a warm process meets the same records again."""

    def __init__(self, judge: Encoder | None, tokens: TokenEncoder | None) -> None:
        self.judge = judge
        self.tokens = tokens
        self._claims: dict[str, np.ndarray] = {}
        self._token_rows: dict[str, np.ndarray] = {}

    def remember_claims(self, texts: list[str], vectors: Iterable[np.ndarray]) -> None:
        """The judge's vectors of an item's claims, read in one batch by the cosine decision."""
        self._claims.update(zip(texts, vectors, strict=True))

    def claim(self, text: str) -> np.ndarray | None:
        if self.judge is None:
            return None
        return _read_once(self._claims, [text], self.judge.encode)[0]

    def passages(self, hits: list[PassageHit]) -> list[np.ndarray | None]:
        """Each passage as the cosine decision reads it: in its record's batch, which the
        fill after an ingest keeps on disk (a passage alone was an e5 run per claim of
        every new item)."""
        if self.judge is None:
            return [None] * len(hits)
        kept = judged_passages(self.judge)
        return [kept.vectors(hit.known.passages)[hit.index] for hit in hits]

    def token_rows(self, texts: list[str]) -> list[np.ndarray | None]:
        if self.tokens is None:
            return [None] * len(texts)
        return _read_once(self._token_rows, texts, self.tokens.encode_tokens)


def _read_once(
    kept: dict[str, np.ndarray], texts: list[str], encode: Callable[[list[str]], Iterable[np.ndarray]]
) -> list[np.ndarray | None]:
    """Each text's encoding, encoding in one call only the texts not read before."""
    missing = list(dict.fromkeys(t for t in texts if t not in kept))
    if missing:
        kept.update(zip(missing, encode(missing), strict=True))
    return [kept[t] for t in texts]


def coverage(claim: np.ndarray | None, passage: np.ndarray | None) -> float:
    """How much of the claim the passage says: the mean, over the claim's tokens, of
    each one's best cosine to the passage's tokens (BERTScore's recall)."""
    if claim is None or passage is None or not len(claim) or not len(passage):
        return 0.0
    return float((claim @ passage.T).max(axis=1).mean())
