"""Search over the store: dense, lexical or hybrid, with filters and exact-id pinning.

Filters are applied inside both the vector and the lexical search, before
either is cut to its top candidates, so a filtered search still returns k
results when k exist. Records carrying an exact identifier from the query
(an arXiv id, a GitHub repo, a URL) come first in every mode. One ranking of
the candidates is ``ranking``'s; around it, this module fixes the baselines
without the filter's view part, lifts an item's other records, pins the ids
first and reads the hits.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import numpy as np

from kbsearch.embed import Encoder
from kbsearch.responses import SearchHit, SearchMode, SearchResponse
from kbsearch.search.candidates import Candidates, add_pinned, dense_side, depth_of, gather_lexical
from kbsearch.search.change_first import change_first
from kbsearch.search.exact import Pins, QueryIds, find_pins, query_ids
from kbsearch.search.expansion import with_forms
from kbsearch.search.filed_news import news_first
from kbsearch.search.fusion import Fusion
from kbsearch.search.items import same_item
from kbsearch.search.judge_side import JudgeQuery
from kbsearch.search.ranking import DEFAULT_FUSION, Ranked, lexical_candidates, query_share, rank
from kbsearch.search.reads import CandidateReads
from kbsearch.search.snippets import hit_snippet
from kbsearch.store import SearchFilter, Store
from kbsearch.store.lexical import QueryTerms, query_terms
from kbsearch.text.ids import ids_alone

__all__ = ["SearchHit", "SearchMode", "SearchResponse", "search"]


# The best hits whose items' other records are looked for (kbsearch.search.items); they score at least
# ``ranking.ITEM_SHARE`` of such a hit's score.
ITEM_LEADERS = 3
# A hit carries its record's text up to here: a record of megabytes is read in full by ``kbsearch show`` alone.
HIT_TEXT_CHARS = 20_000


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
            reads.read_ahead(lexical_candidates(found))  # while the dense side walks
        vector, found.dense = dense.result()
    add_pinned(store, found, pins, terms, vector if mode is not SearchMode.lexical else None)
    weighted = mode is SearchMode.hybrid and fusion.method == "weighted"
    evidence = _evidence(store, terms, vector, flt, fusion, reads, exact, k) if weighted else None  # ranks first
    ranked = rank(store, found, terms, vector, mode, fusion, reads)
    if weighted and fusion.item_share:
        leaders = (ranked if evidence is None else evidence)[:ITEM_LEADERS]
        ranked = _same_item_lift(store, found, ranked, terms, vector, flt, fusion, reads, leaders)
        ranked = news_first(store, query, ranked, lambda rows: query_share(reads, terms, rows))  # (filed_news)
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
