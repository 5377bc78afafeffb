"""The judge model's say in a hybrid search: e5's reading of the query against
each candidate's whole text, beside USE's passages and the words.

An index with a judge (models.txt ``judge=``) keeps e5's vector of every
record's whole text for check's same-item decision. A search reads those
vectors for its candidates, so it costs one more encoding of the query and no
more scanning: the candidates are the ones the dense and lexical sides found.

e5 scores a text in the query's own language higher than one saying the same
in the other (an English query's English neighbours outscore its Chinese
answer), so its raw cosine would pull each search towards the query's
language. Each candidate is scored instead against the best of its own
language among the candidates: its cosine less the mean of the top
``baseline`` cosines of the candidates written in its language. Within one
language this keeps e5's order; across languages it compares each record
with its peers, not with the query's language.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np

from kbsearch.search.fusion import Fusion
from kbsearch.search.reads import CandidateReads


@dataclass(frozen=True)
class JudgeQuery:
    """The query as the judge model reads it: the model's name (whose stored
    vectors to read) and its vector, or the future computing it meanwhile."""

    model: str
    vector: np.ndarray | Future[np.ndarray]

    def resolved(self) -> np.ndarray:
        vector = self.vector.result() if isinstance(self.vector, Future) else self.vector
        flat = np.asarray(vector, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(flat))
        return flat / norm if norm > 0 else flat


def with_judge(scores: dict[int, float], reads: CandidateReads, fusion: Fusion) -> dict[int, float]:
    """``scores`` plus the judge's lift (``judge_lift``), when the search has a judge query. Each
    language's baseline is read at the search's first ranking and kept (``search.reads``): that of a
    filtered search is the search's without the filter, so a filter moves no baseline."""
    if reads.judge is None or fusion.judge_weight <= 0:
        return scores
    cosine = reads.judge_cosines(list(scores))
    if reads.judge_levels is None:
        reads.judge_levels = judge_levels(cosine, reads.language_or_none, fusion.judge_baseline)
    lift = judge_lift(cosine, reads.language_or_none, fusion.judge_weight, fusion.judge_baseline, reads.judge_levels)
    return {rowid: score + lift.get(rowid, 0.0) for rowid, score in scores.items()}


def judge_lift(
    cosine: dict[int, float],
    language: Callable[[int], str | None],
    weight: float,
    baseline: int,
    levels: dict[str | None, float] | None = None,
) -> dict[int, float]:
    """Row id → ``weight`` × the candidate's judge cosine less its language's baseline (module
    docstring): ``levels``' where it has the language, else that of these candidates; candidates
    with no stored judge vector (absent from ``cosine``) get none."""
    own = judge_levels(cosine, language, baseline)
    lift: dict[int, float] = {}
    for lang, peers in _by_language(cosine, language).items():
        level = (levels or {}).get(lang, own[lang])
        lift.update((rowid, weight * (cosine[rowid] - level)) for rowid in peers)
    return lift


def judge_levels(
    cosine: dict[int, float], language: Callable[[int], str | None], baseline: int
) -> dict[str | None, float]:
    """Language → the mean of the top ``baseline`` cosines of the candidates written in it."""
    levels: dict[str | None, float] = {}
    for lang, peers in _by_language(cosine, language).items():
        top = sorted((cosine[r] for r in peers), reverse=True)[:baseline]
        levels[lang] = sum(top) / len(top)
    return levels


def _by_language(cosine: dict[int, float], language: Callable[[int], str | None]) -> dict[str | None, list[int]]:
    groups: dict[str | None, list[int]] = {}
    for rowid in cosine:
        groups.setdefault(language(rowid), []).append(rowid)
    return groups
