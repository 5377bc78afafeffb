"""A far better match in the other language outweighs word overlap in the query's own.

Only a record written in the query's language can hold most of the query's words: a record in
the other language earns coverage on the few terms written alike in both (names, figures,
``text.neutral``) and on the English words inside a Chinese text. So when the dense side's best
record is in the other language and far closer to the query than a record in the query's own, the
latter's share of the query's common words ("motion", "video", "generation") is no evidence that
it is the better answer: any record of the topic in that language holds a few of them. There the
coverage of such a record is raised to the power ``Fusion.foreign_gap_power`` (squared once more:
the share of the query's terms to the fourth): a record holding every term of the query still
counts in full, one holding half of them (0.5² = 0.25 before) nearly nothing (0.06). A record
holding the query's rare names keeps the names' weight (``fusion.weighted_sum``), and within one
language, or when the dense side puts the two languages' best records close, nothing changes.

USE's cosines across languages run lower than within one for the same meaning, so a gap of
``Fusion.foreign_gap`` in the foreign record's favour is a strong one.
"""

from __future__ import annotations

from collections.abc import Callable

from kbsearch.search.fusion import Fusion
from kbsearch.search.reads import CandidateReads

# The shipped setting (ranking.DEFAULT_FUSION), taken from probe 36's miss (the foreign record led by
# 0.19). The development half of the mixed-language digest views ranks alike from 0.05 to 0.30, so it
# does not set the gap; at 0.15 the held-out half is level (docs/search.md, "Search quality").
FOREIGN_GAP = 0.15
GAP_POWER = 2.0


def best_foreign(cosine: dict[int, float], query_language: str | None, language: Callable[[int], str]) -> float | None:
    """The dense side's best cosine when its best candidate is in another language than the query's;
    None when it is in the query's, or the query has no language (an id, a number). Only then has
    the dense side crossed its lean towards the query's language to prefer the foreign record."""
    if query_language is None or not cosine:
        return None
    top = min(cosine, key=lambda rowid: (-cosine[rowid], rowid))
    return cosine[top] if language(top) != query_language else None


def damped(
    coverage: dict[int, float],
    cosine: dict[int, float],
    query_language: str | None,
    reads: CandidateReads,
    fusion: Fusion,
) -> dict[int, float]:
    """``coverage`` with that of each record in the query's language whose cosine is at least
    ``fusion.foreign_gap`` below the best of the other language's (``best_foreign``) raised to
    ``fusion.foreign_gap_power``. That best is read at the search's first ranking and kept, as the
    judge's baselines are (``search.reads``): a filter, or an item's siblings added later, move it not."""
    if fusion.foreign_gap <= 0 or query_language is None:
        return coverage
    if reads.foreign_best is None:
        reads.foreign_best = (best_foreign(cosine, query_language, reads.language),)
    best = reads.foreign_best[0]
    if best is None:
        return coverage
    return {
        rowid: share**fusion.foreign_gap_power
        if reads.language(rowid) == query_language and cosine.get(rowid, 0.0) <= best - fusion.foreign_gap
        else share
        for rowid, share in coverage.items()
    }
