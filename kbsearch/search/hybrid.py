"""Search over the store: dense, lexical or hybrid, with filters and exact-id pinning.

Filters are applied inside both the vector and the lexical search, before
either is cut to its top candidates, so a filtered search still returns k
results when k exist. Records carrying an exact identifier from the query
(an arXiv id, a GitHub repo, a URL) come first in every mode.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, replace

import numpy as np

import kbsearch.search.fusion as fuse
from kbsearch.embed import Encoder
from kbsearch.responses import SearchHit, SearchMode, SearchResponse, Tier
from kbsearch.search.candidates import Candidates, add_pinned, dense_side, depth_of, gather_lexical
from kbsearch.search.change_first import change_first
from kbsearch.search.exact import Pins, QueryIds, find_pins, query_ids
from kbsearch.search.expansion import groups, with_forms
from kbsearch.search.foreign_gap import FOREIGN_GAP, GAP_POWER, damped
from kbsearch.search.fusion import Fusion
from kbsearch.search.items import same_item
from kbsearch.search.judge_side import JudgeQuery, with_judge
from kbsearch.search.reads import CandidateReads
from kbsearch.search.snippets import hit_snippet
from kbsearch.store import SearchFilter, Store
from kbsearch.store.lexical import QueryTerms, query_terms
from kbsearch.text.ids import ids_alone
from kbsearch.text.neutral import MIN_NEUTRAL_TERMS
from kbsearch.text.textsim import language

__all__ = ["SearchHit", "SearchMode", "SearchResponse", "search"]


# The best hits whose items' other records are looked for (kbsearch.search.items), and the share of such a hit's
# score its item's other records get at least: enough to rank them together, below the hit the query found.
ITEM_LEADERS = 3
ITEM_SHARE = 0.9
# A hit carries its record's text up to here: a record of megabytes is read in full by ``kbsearch show`` alone.
HIT_TEXT_CHARS = 20_000

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


def search(
    store: Store,
    encoder: Encoder | None,
    query: str,
    k: int = 10,
    flt: SearchFilter | None = None,
    mode: SearchMode = SearchMode.hybrid,
    *,
    vector: np.ndarray | None = None,
    fusion: Fusion = DEFAULT_FUSION,
    judge: JudgeQuery | None = None,
) -> SearchResponse:
    """The k best records for ``query``. ``encoder`` may be None in lexical mode;
    ``vector`` is the query's embedding when the caller has it already; ``judge``
    the judge model's, for a hybrid search of an index keeping its vectors."""
    started = time.perf_counter()
    flt = flt or SearchFilter()
    dense = dense_side(store, encoder, query, vector, flt, mode, depth_of(k, mode, fusion))
    terms = with_forms(query_terms(query), query)  # KV cache also finds 键值缓存 (search.expansion)
    exact = query_ids(query)
    pins = find_pins(store, exact, flt, k)
    found = gather_lexical(store, terms, flt, mode, k, fusion)
    reads = CandidateReads(store, judge if mode is SearchMode.hybrid else None)
    if dense is not None:
        if mode is SearchMode.hybrid and fusion.method == "weighted":
            reads.read_ahead(_lexical_side(found))  # while the dense side walks
        vector, found.dense = dense.result()
    add_pinned(store, found, pins, terms, vector if mode is not SearchMode.lexical else None)
    weighted = mode is SearchMode.hybrid and fusion.method == "weighted"
    evidence = _evidence(store, terms, vector, flt, fusion, reads, exact, k) if weighted else None  # ranks first
    ranked = rank(store, found, terms, vector, mode, fusion, reads)
    if weighted and fusion.item_share:
        leaders = (ranked if evidence is None else evidence)[:ITEM_LEADERS]
        ranked = _same_item_lift(store, found, ranked, terms, vector, flt, fusion, reads, leaders)
        ranked = change_first(store, query, ranked, leaders, flt)  # a correction asked for first (change_first)
    ranked = _pin_first(pins, ranked, only=ids_alone(query) or pins.alone(exact))[:k]  # ids alone: theirs or none
    hits = _hits(store, ranked, terms, exact.all(), vector)
    model = encoder.model_id if encoder is not None else (store.model or "")
    return SearchResponse(
        query=query,
        model=model,
        mode=mode,
        judge=reads.judge.model if reads.judge is not None else None,
        k=k,
        filters=flt,
        missing_ids=pins.missing,
        missing_elsewhere=pins.elsewhere,
        id_start=pins.starting,
        results=hits,
        seconds=round(time.perf_counter() - started, 4),
    )


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
    lexical_side = _lexical_side(found)
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


def _lexical_side(found: Candidates) -> list[int]:
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


def _evidence(
    store: Store,
    terms: QueryTerms,
    vector: np.ndarray | None,
    flt: SearchFilter,
    fusion: Fusion,
    reads: CandidateReads,
    exact: QueryIds,
    k: int,
) -> list[Ranked] | None:
    """The ranking of the search without the filter's view part (kinds,
    instance, topic, category, dates, section) over the candidates that search
    would take; None when the filter has none.

    A filter chooses which records are shown, not how well each matches. This
    ranking, first of the search, fixes the baselines a record is scored
    against (the judge's, the short terms' weights: ``search.reads``), so each
    record scores as in the unfiltered search; and its best ``ITEM_LEADERS``
    hits are the filtered search's item leaders, so an item's record lifted by
    the item's best hit keeps that lift when the filter hides the hit, and a
    record the filter lets rise into the first three lifts none. What a filter
    takes out as no evidence at all (``exclude_ids``, ``not_after``:
    ``check``'s own item and what was written after it) lifts nothing."""
    evidence = SearchFilter(not_after=flt.not_after, exclude_ids=flt.exclude_ids)
    if vector is None or flt == evidence:
        return None
    wider = gather_lexical(store, terms, evidence, SearchMode.hybrid, k, fusion)
    wider.dense = store.search_records(vector, depth_of(k, SearchMode.hybrid, fusion), evidence)
    add_pinned(store, wider, find_pins(store, exact, evidence, k), terms, vector)
    return rank(store, wider, terms, vector, SearchMode.hybrid, fusion, reads)


def _same_item_lift(
    store: Store,
    found: Candidates,
    ranked: list[Ranked],
    terms: QueryTerms,
    vector: np.ndarray | None,
    flt: SearchFilter,
    fusion: Fusion,
    reads: CandidateReads,
    best: list[Ranked],
) -> list[Ranked]:
    """Records of the same item as one of the ``best`` hits (the unfiltered
    search's best ``ITEM_LEADERS``; a worse one of those hits included) score
    at least ``fusion.item_share`` of that hit's score (see
    ``kbsearch.search.items``); those the search missed join the candidates first."""
    leaders = [r.rowid for r in best]
    sibling_of = same_item(store, leaders, flt)
    if not sibling_of:
        return ranked
    have = {r.rowid for r in ranked}
    missing = [r for r in sibling_of if r not in have]
    if missing and vector is not None:
        found.dense = sorted(found.dense + store.score_records(missing, vector), key=lambda row: -row[1])
        ranked = rank(store, found, terms, vector, SearchMode.hybrid, fusion, reads)
    # The share is a floor under the whole item, the item's other leaders
    # included: a second direct hit of the item left at its own score fell
    # below the item's weaker records lifted past it, and below another
    # item's record that it would have outranked had it been lifted as they
    # were. On one floor the records keep the order of their own scores, so
    # the item's records rank among themselves as the query found them. A
    # leader stays above its item, as a share of its score is below it; of a
    # score below zero (a query that found nothing) a share is above it, so
    # such a leader lifts nothing.
    own = {r.rowid: r.score for r in best} | {r.rowid: r.score for r in ranked}
    names = {rowid: head.id for rowid, head in store.heads(leaders, 0).items()}
    for row in ranked:
        leader = sibling_of.get(row.rowid)
        if leader is None or own.get(leader, 0.0) <= 0.0:
            continue
        floor = fusion.item_share * own[leader]
        if floor > row.score:
            row.score = floor
            row.item_of = names.get(leader)
    return sorted(ranked, key=lambda r: (-r.score, -own[r.rowid], r.rowid))


def _pin_first(pins: Pins, ranked: list[Ranked], *, only: bool = False) -> list[Ranked]:
    """Pinned records first, tier by tier, each tier in ranking order (the
    records an id's start names in id order); then
    the rest, unless ``only`` (a query of arXiv ids alone, or a record's id):
    then the pinned records alone, none when none is (no record within the
    filters carries the ids: the records nearest to a number are no answer).
    A tier whose scores would fall below a later record's is lifted by the
    least whole number that keeps every score in rank order."""
    position = {r.rowid: i for i, r in enumerate(ranked)}
    by_rowid = {r.rowid: r for r in ranked}
    tiers = [
        [
            replace(by_rowid.get(r, Ranked(rowid=r, score=0.0)), exact=tier)
            for r in (group if tier == "record" else sorted(group, key=lambda r: position.get(r, len(ranked))))
        ]
        for tier, group in pins.tiers
    ]
    taken = set(pins.rowids())
    rest = [] if only else [r for r in ranked if r.rowid not in taken]
    floor = max((r.score for r in rest), default=-math.inf)
    for tier in reversed(tiers):
        lowest = min(r.score for r in tier)
        lift = float(math.floor(floor - lowest) + 1) if lowest <= floor else 0.0
        for row in tier:
            row.lift = lift
            row.score += lift
        floor = max(floor, max(r.score for r in tier))
    return [r for tier in tiers for r in tier] + rest


def _hits(
    store: Store, ranked: list[Ranked], terms: QueryTerms, exact: list[str], vector: np.ndarray | None
) -> list[SearchHit]:
    """The ranked records as hits; ``vector`` (the query's, if embedded) picks a snippet's passage."""
    heads = store.heads((r.rowid for r in ranked), HIT_TEXT_CHARS)
    refs = store.refs_of(list(heads))
    hits: list[SearchHit] = []
    for row in ranked:
        if (head := heads.get(row.rowid)) is None:  # deleted by a concurrent writer since the search
            continue
        carried = {*head.arxiv_ids, *head.cited_ids, *refs.get(row.rowid, [])}
        hits.append(
            SearchHit(
                rank=len(hits) + 1,
                id=head.id,
                score=round(row.score, 4),
                kind=head.kind,
                title=head.title,
                text=head.text,
                text_cut=head.text_cut,
                instance=head.instance,
                date=head.date,
                topic=head.topic,
                section=head.section,
                source=head.source,
                arxiv_ids=head.arxiv_ids,
                cited_ids=head.cited_ids,
                category=head.category,
                matched_ids=[head.id] * (row.exact == "record") + [e for e in exact if e in carried],
                exact=row.exact,
                lift=row.lift,
                item_of=row.item_of,
                dense_score=None if row.dense_score is None else round(row.dense_score, 4),
                lexical_rank=row.lexical_rank,
                lexical_score=None if row.lexical_score is None else round(row.lexical_score, 4),
                snippet=hit_snippet(store, row.rowid, row.passage, head, terms, vector),
            )
        )
    return hits
