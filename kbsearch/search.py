"""Semantic search over the store, with filters and exact-id pinning."""

from __future__ import annotations

import datetime as dt
import time

import numpy as np
from pydantic import BaseModel, Field

from kbsearch.embed import Encoder
from kbsearch.ids import extract_arxiv_ids
from kbsearch.records import Kind, Record
from kbsearch.store import SearchFilter, Store


class SearchHit(BaseModel):
    """One result row: the record's fields plus why and how well it matched."""

    rank: int
    id: str
    score: float
    """Cosine similarity of the query and the record's best passage (title, whole text or a claim)."""
    kind: Kind
    title: str
    text: str
    instance: str | None
    date: dt.date | None
    topic: str | None
    section: str | None
    source: str | None
    arxiv_ids: list[str]
    cited_ids: list[str]
    matched_ids: list[str] = Field(default_factory=list)
    """arXiv ids from the query that this record carries; such hits rank first."""

    @classmethod
    def from_record(cls, rank: int, record: Record, score: float, matched: list[str]) -> SearchHit:
        return cls(rank=rank, id=record.id, score=round(float(score), 4), kind=record.kind,
                   title=record.title, text=record.text, instance=record.instance, date=record.date,
                   topic=record.topic, section=record.section, source=record.source,
                   arxiv_ids=record.arxiv_ids, cited_ids=record.cited_ids, matched_ids=matched)


class SearchResponse(BaseModel):
    query: str
    model: str
    k: int
    filters: SearchFilter
    results: list[SearchHit]
    seconds: float


def search(store: Store, encoder: Encoder, query: str, k: int = 10,
           flt: SearchFilter | None = None) -> SearchResponse:
    started = time.perf_counter()
    flt = flt or SearchFilter()
    query_vector = encoder.encode([query])[0]
    query_ids = extract_arxiv_ids(query)
    pinned = _pinned(store, query_ids, flt, query_vector)
    dense = store.search_records(query_vector, k + len(pinned), flt)
    pinned_ids = {rowid for rowid, _, _ in pinned}
    ranked = (pinned + [row for row in dense if row[0] not in pinned_ids])[:k]
    records = store.by_rowids(rowid for rowid, _, _ in ranked)
    hits = []
    for rowid, score, _ in ranked:
        record = records.get(rowid)
        if record is None:  # deleted by a concurrent writer since the search
            continue
        matched = [a for a in query_ids if a in record.arxiv_ids or a in record.cited_ids]
        hits.append(SearchHit.from_record(len(hits) + 1, record, score, matched))
    return SearchResponse(query=query, model=encoder.model_id, k=k, filters=flt, results=hits,
                          seconds=round(time.perf_counter() - started, 4))


def _pinned(store: Store, query_ids: list[str], flt: SearchFilter,
            query_vector: np.ndarray) -> list[tuple[int, float, int]]:
    """Records carrying an id from the query: those about it first, then those
    citing it, each group by score."""
    if not query_ids:
        return []
    allowed = store.filter_rowids(flt)
    subject = store.rowids_with_arxiv(query_ids, role="subject")
    cited = [r for r in store.rowids_with_arxiv(query_ids, role="cited") if r not in set(subject)]
    groups = []
    for rowids in (subject, cited):
        kept = [r for r in rowids if allowed is None or r in set(allowed)]
        groups += sorted(store.score_records(kept, query_vector), key=lambda row: -row[1])
    return groups
