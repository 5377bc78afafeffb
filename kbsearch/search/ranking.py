"""One ranking of a search's candidates: dense, lexical, reciprocal-rank or weighted fusion.

The weighted fusion (the shipped one) scores every candidate by its cosine plus its
idf-weighted coverage of the query's terms (``fusion``), read across languages as
below, with the judge's reading of the whole texts (``judge_side``) and a query naming
an item ranking that item's records first (``fusion.names_first``). What the search
does around a ranking (filters, pins, the item lift, the hits) is ``hybrid``'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

import kbsearch.search.fusion as fuse
from kbsearch.responses import SearchMode, Tier
from kbsearch.search.candidates import Candidates
from kbsearch.search.expansion import groups
from kbsearch.search.foreign_gap import FOREIGN_GAP, GAP_POWER, damped
from kbsearch.search.fusion import Fusion
from kbsearch.search.judge_side import with_judge
from kbsearch.search.reads import CandidateReads
from kbsearch.store import Store
from kbsearch.store.lexical import QueryTerms
from kbsearch.text.neutral import MIN_NEUTRAL_TERMS
from kbsearch.text.textsim import language

# The share of a best hit's score its item's other records get at least (``hybrid.ITEM_LEADERS``,
# kbsearch.search.items): enough to rank them together, below the hit the query found.
ITEM_SHARE = 0.9

# Chosen with bench/search_quality.py --sweep on the parallel sets, the domain stream and the mixed-language
# digest views. Rank fusion let lexical noise (stray words shared across languages) tie with the best dense hit
# and lost up to 0.47 R@1 on WMT en→zh; the weighted sum of the cosine and 0.7 × the idf-weighted coverage does not.
# Across languages a record's own words count as in one language, and its meta (tags, sources, the relation to
# the living doc) not at all: an English word in a Chinese record's text (zero-copy, PagedAttention, an English
# paper title) is evidence, English tags on a Chinese record only say its topic ("compression" on C²KV must not
# beat 频域压缩). Scaling a foreign record's coverage down instead ranked the Chinese card of an English
# summary's paper below English distractors (R@1 0.538 against dense's 0.774 in a corpus of both languages).
# The coverage is squared: a record holding most of the query's terms keeps most of the weight, one holding a
# few keeps little. Across languages that tells a record saying it in the query's words (the English title of a
# Chinese card) from one sharing a name (Tatoeba's Chinese sentences that write "Tom"): plain coverage cost 0.010
# R@1 on Tatoeba en→zh and 0.063 on Chinese summaries finding English cards, for 0.002 on reworded Chinese
# summaries finding their card. A rare coined name (RingPose) adds 0.2: against squared coverage 0.1 no longer
# lifts the record holding the name of a long query above one holding more of its other words, and 0.4 begins
# to cost WMT en→zh.
# A query of at most this many terms with a rare coined name names an item: its records rank above look-alikes
# (``fusion.names_first``). In a sentence or summary a rare name is as often another item's (a baseline):
# lifting its records there cost 0.004 R@1 on WMT en→zh and 0.003 on reworded summaries finding their card.
NAME_QUERY_TERMS = 6
# e5's reading of the whole texts, language-relative (search.judge_side), weighs twice the cosine:
# chosen on the parallel sets (Tatoeba, WMT22), where 2 and 3 are within 0.002 R@1 (docs/search.md).
JUDGE_WEIGHT = 2.0
DEFAULT_FUSION = Fusion(
    "weighted",
    lexical_weight=0.7,
    coverage_power=2.0,
    name_weight=0.2,
    cross_language=1.0,
    cross_language_meta=0.0,
    item_share=ITEM_SHARE,
    judge_weight=JUDGE_WEIGHT,
    foreign_gap=FOREIGN_GAP,
    foreign_gap_power=GAP_POWER,
)


@dataclass
class Ranked:
    """One ranked record before it is turned into a hit."""

    rowid: int
    score: float
    dense_score: float | None = None
    passage: int | None = None
    lexical_rank: int | None = None
    lexical_score: float | None = None
    exact: Tier | None = None
    lift: float = 0.0
    item_of: str | None = None


def rank(
    store: Store,
    found: Candidates,
    terms: QueryTerms,
    vector: np.ndarray | None,
    mode: SearchMode,
    fusion: Fusion,
    reads: CandidateReads | None = None,
) -> list[Ranked]:
    """One ranking from the candidates, best first; ``reads`` holds what this search read of them already."""
    dense = {rowid: (score, idx) for rowid, score, idx in found.dense}
    lexical = {rowid: (i, score) for i, (rowid, score) in enumerate(found.lexical, start=1)}
    if mode is SearchMode.dense:
        order = [(rowid, score) for rowid, score, _ in found.dense]
    elif mode is SearchMode.lexical:
        order = list(found.lexical)
    elif fusion.method == "rrf":
        order = fuse.ordered(fuse.reciprocal_rank(list(dense), list(lexical), fusion))
    else:
        order = fuse.ordered(_weighted(reads or CandidateReads(store), found, terms, vector, dense, fusion))
    return [
        Ranked(
            rowid=rowid,
            score=score,
            dense_score=dense.get(rowid, (None, None))[0],
            passage=dense.get(rowid, (None, None))[1],
            lexical_rank=lexical.get(rowid, (None, None))[0],
            lexical_score=lexical.get(rowid, (None, None))[1],
        )
        for rowid, score in order
    ]


def _weighted(
    reads: CandidateReads,
    found: Candidates,
    terms: QueryTerms,
    vector: np.ndarray | None,
    dense: dict[int, tuple[float, int]],
    fusion: Fusion,
) -> dict[int, float]:
    """Cosine plus weighted term coverage, both computed for every candidate.

    Lexical-only candidates get their cosine here, and are added to ``dense``
    so that their hits report it too.
    """
    cosine = {rowid: score for rowid, (score, _) in dense.items()}
    lexical_side = lexical_candidates(found)
    outside = list(dict.fromkeys(r for r in lexical_side if r not in cosine))
    if outside and vector is not None:
        for rowid, score, idx in reads.scores(outside, vector):
            cosine[rowid] = score
            dense[rowid] = (score, idx)
    parts = reads.parts(sorted(cosine.keys() | set(lexical_side)))
    weights = reads.term_weights(terms, list(parts))  # read at the search's first ranking (search.reads)
    query_language = _query_language(terms)
    neutral = {t: weights[t] for t in terms.neutral if t in weights} if len(terms.neutral) >= MIN_NEUTRAL_TERMS else {}
    grouped, names = groups(terms), frozenset(terms.names + terms.words)  # names: found in the text alone
    coverage = {
        rowid: _coverage(weights, main, meta, query_language, reads.language(rowid), fusion, neutral, grouped, names)
        for rowid, (main, meta) in parts.items()
    }
    coverage = damped(coverage, cosine, query_language, reads, fusion)  # a far closer foreign record (foreign_gap)
    scores = with_judge(fuse.weighted_sum(cosine, coverage, fusion, found.named), reads, fusion)
    if len(terms.all()) > NAME_QUERY_TERMS:  # a sentence or summary: a rare name there may be another item's
        return scores
    return fuse.names_first(scores, {n: rows for n, rows in found.named.items() if n in terms.names})


def query_share(reads: CandidateReads, terms: QueryTerms, rowids: list[int]) -> dict[int, float]:
    """Row id → the idf-weighted share of the query's terms its own words (title and text) hold, the
    function words aside (never found: ``reads.term_weights``), with the weights of the search's ranking."""
    parts = reads.parts(rowids)
    weights = {t: w for t, w in reads.term_weights(terms, list(parts)).items() if not t.startswith("\0")}
    grouped = groups(terms)
    return {rowid: fuse.term_coverage(weights, main, 1.0, groups=grouped) for rowid, (main, _) in parts.items()}


def lexical_candidates(found: Candidates) -> list[int]:
    """The lexical side's candidates and the records holding the query's rare names, in that order."""
    return [rowid for rowid, _ in found.lexical] + [r for rows in found.named.values() for r in rows] + found.neutral


def _coverage(
    weights: dict[str, float],
    main: str,
    meta: str,
    query_language: str | None,
    own_language: str,
    fusion: Fusion,
    neutral: dict[str, float],
    grouped: list[tuple[frozenset[str], re.Pattern[str]]],
    names: frozenset[str] = frozenset(),
) -> float:
    """The record's term coverage; across languages its meta counts less, and the better share of the query's
    ``neutral`` terms alone (B200, 57%, DeepSeek-V4: ``text.neutral``) is kept. ``own_language`` is the record's head's.
    The query's ``names`` count in its own words only, unless a line of its meta holds the whole query (its tag)."""
    alike, says = query_language in (None, own_language), fuse.meta_says_the_query(weights, meta)
    meta_share, own = 1.0 if alike or says else fusion.cross_language_meta, frozenset() if says else names
    share = fuse.term_coverage(weights, main, fusion.coverage_power, meta, meta_share, grouped, own)
    if alike:
        return share
    return max(share, fuse.term_coverage(neutral, main, fusion.coverage_power)) * fusion.cross_language


def _query_language(terms: QueryTerms) -> str | None:
    """The query's language, or None for one without letters: a number
    (29%, 1,618) is written alike in every language."""
    query = " ".join([*terms.long, *terms.short])
    return language(query) if any(ch.isalpha() for ch in query) else None
