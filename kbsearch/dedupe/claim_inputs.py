"""What the claim decisions read of an item's claims, encoded beside the search.

Only the claim decisions read the judge's vectors of the claims and their
token vectors, and they come last in a check: both run on the thread beside
(``runtime.overlap.Pipeline``) while the item is searched and compared, one
piece after the other, and are waited for where they are read.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import kbsearch.runtime.timings as timings
from kbsearch.dedupe.passage_reader import PassageReader
from kbsearch.embed import Encoder
from kbsearch.records import Record
from kbsearch.runtime.cancel import checkpoint
from kbsearch.runtime.overlap import Pending, Pipeline

CLAIM_TOKEN_BATCH = 16
"""Claims encoded token by token per model run: a request's budget is checked between runs."""


class ClaimInputs:
    """One check's early encodings of its items' claims, keyed by the item's record."""

    def __init__(self, judge: Encoder | None, reader: PassageReader, claims_of: Callable[[Record], list[str]]) -> None:
        self.judge, self.reader, self.claims_of = judge, reader, claims_of
        self._vectors: Pending[dict[int, dict[str, np.ndarray]]] | None = None
        self._token_rows: Pending[None] | None = None

    def start(self, items: list[Record], beside: Pipeline, *, vectors: bool, tokens: bool) -> None:
        """Queue the judge's vectors (``vectors``) and the token vectors (``tokens``) of every claim."""
        self._vectors = beside.start(lambda: self._embed(items, beside), "judge claims wait") if vectors else None
        self._token_rows = beside.start(lambda: self._encode(items, beside), "claim tokens wait") if tokens else None

    def judge_vectors(self, record: Record, texts: list[str], whole_text: str, whole: np.ndarray | None) -> np.ndarray:
        """The judge's vector of each of ``texts``, the item's claims: those made beside, else one run now."""
        assert self.judge is not None
        early = self._vectors.result().pop(id(record), None) if self._vectors is not None else None
        if early is not None and whole is not None:
            return claim_vectors(texts, whole_text, whole, early)
        with timings.phase("judge claims"):
            return embed_claims(self.judge, texts, whole_text, whole)

    def wait_for_token_rows(self) -> None:
        """Before the passage reader is asked for them; an error beside is raised here."""
        if self._token_rows is not None:
            self._token_rows.result()

    def _embed(self, items: list[Record], beside: Pipeline) -> dict[int, dict[str, np.ndarray]]:
        # The item's own vector is not needed: a claim that is its whole text takes it later.
        assert self.judge is not None
        out = {}
        with timings.phase("judge claims"):
            for item in items:
                if beside.stopping():  # the check failed: nobody will read them
                    break
                checkpoint()
                out[id(item)] = embed_other_claims(self.judge, self.claims_of(item), item.embed_text())
        return out

    def _encode(self, items: list[Record], beside: Pipeline) -> None:
        claims = list(dict.fromkeys(t for item in items for t in self.claims_of(item)))
        with timings.phase("claim tokens"):
            for start in range(0, len(claims), CLAIM_TOKEN_BATCH):
                if beside.stopping():
                    return
                checkpoint()  # a large check stops here once its request is over budget
                self.reader.token_rows(claims[start : start + CLAIM_TOKEN_BATCH])


def with_claims(item: Record) -> list[str]:
    """The item's passages, then each of its claims that is not one: every text a check embeds of it."""
    own = item.passages()
    return own + [claim for claim in item.claim_texts() if claim not in own]


def claims_of(item: Record) -> list[str]:
    """What the claim decisions judge: the item's claims, else its whole text."""
    return item.claim_texts() or [item.embed_text()]


def embed_claims(judge: Encoder, texts: list[str], whole_text: str, whole: np.ndarray | None) -> np.ndarray:
    """The judge's vector of each claim of one item, in one run; a claim that is the
    item's whole text (an item without 要点 or sentences) has it already (``whole``)."""
    if whole is None:
        return judge.encode(texts)
    return claim_vectors(texts, whole_text, whole, embed_other_claims(judge, texts, whole_text))


def embed_other_claims(judge: Encoder, texts: list[str], whole_text: str) -> dict[str, np.ndarray]:
    """The judge's vectors of the claims that are not the item's whole text, in one run:
    needing not the whole text's vector, it may run before that vector is made."""
    others = [t for t in texts if t != whole_text]
    return dict(zip(others, judge.encode(others), strict=True)) if others else {}


def claim_vectors(texts: list[str], whole_text: str, whole: np.ndarray, others: dict[str, np.ndarray]) -> np.ndarray:
    return np.stack([whole if t == whole_text else others[t] for t in texts])
