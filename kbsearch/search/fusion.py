"""Merging the dense and the lexical ranking of one query into a single ranking.

Two ways are offered, and ``bench/search_quality.py --sweep`` measures both:

* reciprocal-rank fusion: each list adds ``weight / (rrf_k + rank)``; it needs
  no score calibration, only ranks;
* a weighted sum: the cosine of the record's best passage plus ``weight``
  times the share of the query's lexical terms the record contains. Both parts
  lie in [0, 1] for every query, so one weight fits short and long queries.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from kbsearch.text.figure_words import holds


@dataclass(frozen=True)
class Fusion:
    """How a hybrid search merges its two candidate lists."""

    method: Literal["rrf", "weighted"] = "rrf"
    rrf_k: float = 60.0
    """RRF damping: larger values flatten the gap between the first ranks."""
    lexical_weight: float = 1.0
    """The lexical list's weight relative to the dense one (RRF), or the weight
    of term coverage added to the cosine (weighted sum)."""
    coverage_power: float = 1.0
    """Weighted sum only: the exponent applied to term coverage (see ``term_coverage``)."""
    depth: int = 50
    """Candidates taken from each list before fusing (at least k)."""
    name_weight: float = 0.0
    """Weighted sum only: added to a record holding the query's rare coined
    names (RingPose, ShardNet), times the share of them it holds."""
    cross_language: float = 1.0
    """Weighted sum only: the coverage of a record in another language than
    the query's is multiplied by this."""
    cross_language_meta: float = 1.0
    """Weighted sum only: across languages, a term found only in a record's
    meta (tags, sources, the relation to the living doc) counts this much."""
    item_share: float = 0.0
    """Weighted sum only: a record of the same item as one of the best hits
    (``kbsearch.search.items``) scores at least this share of that hit's score (0: off)."""
    judge_weight: float = 0.0
    """Weighted sum only: the weight of the judge model's reading of the whole texts, where the search
    has one (``kbsearch.search.judge_side``; 0: off)."""
    judge_baseline: int = 10
    """The judge's cosines are read against the mean of this many best of each language's candidates."""
    foreign_gap: float = 0.0
    """Weighted sum only: a record in the query's language whose cosine is this much below the best
    candidate's in the other language has its coverage raised to ``foreign_gap_power`` (0: off;
    ``kbsearch.search.foreign_gap``)."""
    foreign_gap_power: float = 1.0


def reciprocal_rank(dense: list[int], lexical: list[int], fusion: Fusion) -> dict[int, float]:
    """Row id → fused RRF score over the two rankings (best first in each)."""
    scores: dict[int, float] = {}
    for rank, rowid in enumerate(dense, start=1):
        scores[rowid] = scores.get(rowid, 0.0) + 1.0 / (fusion.rrf_k + rank)
    for rank, rowid in enumerate(lexical, start=1):
        scores[rowid] = scores.get(rowid, 0.0) + fusion.lexical_weight / (fusion.rrf_k + rank)
    return scores


def weighted_sum(
    cosine: dict[int, float], coverage: dict[int, float], fusion: Fusion, named: dict[str, list[int]] | None = None
) -> dict[int, float]:
    """Row id → cosine + weight × coverage (+ the name weight times the share
    of the query's rare names the record holds), for every row id in either map."""
    names_held: dict[int, int] = {}
    for rowids in (named or {}).values():
        for rowid in rowids:
            names_held[rowid] = names_held.get(rowid, 0) + 1
    share = {rowid: count / len(named) for rowid, count in names_held.items()} if named else {}
    return {
        rowid: cosine.get(rowid, 0.0)
        + fusion.lexical_weight * coverage.get(rowid, 0.0)
        + fusion.name_weight * share.get(rowid, 0.0)
        for rowid in cosine.keys() | coverage.keys()
    }


def names_first(scores: dict[int, float], named: dict[str, list[int]]) -> dict[int, float]:
    """``scores`` with the records holding every one of the query's rare coined names (``named``:
    name → its records) above every record holding none of them, all lifted by one amount so
    that they keep their order. Such a name says which item is meant, as an id would; a record
    sharing only the query's other words is a look-alike (``OrroWeave attention-probe
    re-ranking`` listed ``VeridPrism — attention-probe re-ranking`` first, the record named
    OrroWeave fourth). A record holding some of several names is left as it was."""
    if not named:
        return scores
    holding = [set(rows) for rows in named.values()]
    every = set.intersection(*holding) & scores.keys()
    some = set.union(*holding)
    others = [score for rowid, score in scores.items() if rowid not in some]
    if not every or not others:
        return scores
    lift = max(others) - min(scores[r] for r in every)
    if lift < 0:
        return scores
    return {rowid: score + (lift + 1e-3) * (rowid in every) for rowid, score in scores.items()}


def term_coverage(
    weights: dict[str, float],
    text: str,
    power: float = 1.0,
    meta: str = "",
    meta_share: float = 1.0,
    groups: Sequence[tuple[frozenset[str], re.Pattern[str]]] = (),
    own_words: frozenset[str] = frozenset(),
) -> float:
    """The weighted share of the query's terms (keys) found in ``text``, raised
    to ``power``: above 1, matching a few terms of a long query counts for
    little, matching most of them for nearly all. A term found only in
    ``meta`` counts ``meta_share`` of its weight. Terms and texts are both
    folded (``kbsearch.text.folding``), as the lexical index holds them.
    The terms of one of ``groups`` (a standard term's form in the query:
    ``search.expansion``) are all found where its pattern (any of the term's
    forms) is, and one by one elsewhere. A figure term (``40%``) is found whole only (``figure_words.holds``).
    A term of ``own_words`` (the query's names) counts in ``text`` alone: in ``meta`` a name is
    most often another item's (the relation ``与 Lumen 同为 4 亿美元,但是不同公司``) or a source's."""
    whole = sum(weights.values())
    if whole <= 0:
        return 0.0
    whole_found: set[str] = set()
    meta_found: set[str] = set()
    for own, pattern in groups:
        if pattern.search(text):
            whole_found |= own
        elif meta and pattern.search(meta):
            meta_found |= own
    found = sum(
        w
        if term in whole_found or holds(text, term)
        else 0.0
        if term in own_words
        else w * meta_share
        if term in meta_found or holds(meta, term)
        else 0.0
        for term, w in weights.items()
    )
    return (found / whole) ** power


def meta_says_the_query(weights: dict[str, float], meta: str) -> bool:
    """Whether one line of a record's meta (a tag, a source) holds every term
    of the query: then the query is the record's tag, its words are the
    record's own, and it is no cross-language match (an English query
    "prefix caching", a Chinese record tagged prefix-caching). A tag holding
    a few of the query's words still only says the record's topic."""
    wanted = [term for term in weights if not term.startswith("\0")]
    return bool(wanted) and any(all(term in line for term in wanted) for line in meta.split("\n"))


def ordered(scores: dict[int, float]) -> list[tuple[int, float]]:
    """Best first; ties broken by row id so that results are repeatable."""
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))
