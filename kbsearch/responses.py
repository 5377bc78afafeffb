"""The documents the read commands print: search results, listings, stats,
and what ``remove`` removed (``similar`` and ``explain`` print documents of
``kbsearch.dedupe.results``).

The CLI prints them as text or ``--json``, the TUI shows them and the server
sends them. They live apart from the code that computes them so that
``kbsearch search --server`` can read and print them without importing
SQLite, FAISS or numpy.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from kbsearch.filters import SearchFilter
from kbsearch.records import Kind, Record
from kbsearch.text.snippet import Span

Tier = Literal["record", "card", "about", "overview", "cites", "ref"]
"""How a record carries an exact identifier from the query (see ``kbsearch.search.exact``)."""


class SearchMode(StrEnum):
    dense = "dense"
    lexical = "lexical"
    hybrid = "hybrid"


class SearchHit(BaseModel):
    """One result row: the record's fields plus why and how well it matched."""

    rank: int
    id: str
    score: float
    """What the mode ranks by: the cosine of the query and the record's best
    passage (dense), the lexical score (lexical) or the fused score (hybrid)."""
    kind: Kind
    title: str
    text: str
    """The record's text, cut at ``HIT_TEXT_CHARS`` characters (see ``text_cut``)."""
    text_cut: bool = False
    """True when the record's text goes on past ``text``: ``kbsearch show ID`` prints all of it."""
    instance: str | None
    date: dt.date | None
    topic: str | None
    section: str | None
    source: str | None
    arxiv_ids: list[str]
    cited_ids: list[str]
    category: str | None = None
    """A paper card's primary category, or an increment's 主分类 (what ``--category`` filters on)."""
    matched_ids: list[str] = Field(default_factory=list)
    """Exact identifiers from the query (arXiv ids, ``github:owner/repo``,
    ``url:…``, or the record's own id) that this record carries; such hits rank first."""
    exact: Tier | None = None
    """How the record carries them: ``record`` (the query is its id),
    ``card`` (a paper card whose only subject is the id: the paper's own record),
    ``about`` (another record whose only subject it is), ``overview``
    (one of several subjects, or a living-doc section about it), ``cites``, or
    ``ref`` (a repo or URL); see ``kbsearch.search.exact``. None for a record found by its score alone."""
    lift: float = 0.0
    """Added to ``score`` to keep the list in rank order when an exact
    identifier put this record above records that scored higher on their own."""
    item_of: str | None = None
    """The best hit this record shares an item with, when its score is that
    hit's score times ``item_share`` rather than its own (hybrid mode; see
    ``kbsearch.search.items``)."""
    dense_score: float | None = None
    """Cosine of the query and the best passage (None in lexical mode)."""
    lexical_rank: int | None = None
    """Position in the lexical ranking (None when the record matched no term)."""
    lexical_score: float | None = None
    snippet: list[Span] = Field(default_factory=list)
    """A window of the text with the query's terms marked, as spans."""


class UnknownFilter(BaseModel):
    """A filter value that no stored record has, so that the filter alone
    leaves nothing to find: said beside an empty result, not left to guess."""

    filter: Literal["kind", "instance", "topic", "category", "date", "section"]
    value: str
    """The filter's value; for ``date``, the range as said (``from 2030-01-01``)."""
    known: list[str]
    """The values stored records have (the kinds that have records), by name;
    with ``kinds`` or ``within``, the values the records of those have; for
    ``date``, the earliest and the latest date."""
    kinds: list[str] = Field(default_factory=list)
    """Set when records have the value but none of these kinds (the filter's
    ``--kind``) does: the two filters together leave nothing to find."""
    within: dict[str, str] = Field(default_factory=dict)
    """The other filters (``instance``, ``topic``, ``date``) with which this one
    leaves nothing, though each alone finds records: ``{"instance": "spark"}``."""
    elsewhere: list[str] = Field(default_factory=list)
    """For a topic ``within`` an instance: the instances whose records (of ``kinds``) have the topic."""


class SearchResponse(BaseModel):
    query: str
    model: str
    mode: SearchMode = SearchMode.hybrid
    judge: str | None = None
    """The judge model whose reading of the whole texts a hybrid search weighed beside ``model``'s
    (the index keeps its vectors: models.txt ``judge=``); None when it had none."""
    k: int
    filters: SearchFilter
    missing_ids: list[str] = Field(default_factory=list)
    """Exact identifiers from the query that no record within the filters carries."""
    missing_elsewhere: dict[str, list[str]] = Field(default_factory=dict)
    """For an identifier of ``missing_ids`` that records outside the filters carry:
    the first of those records' ids (which filter to widen); else absent."""
    id_start: int | None = None
    """The query is the start of several record ids (as ``kbsearch show`` takes it): how many
    records within the filters have such an id; the results are the first ``k``, in id order."""
    unknown_filters: list[UnknownFilter] = Field(default_factory=list)
    """When there are no results: the filter's instance, topic or kinds (when
    none of them has a record) that no stored record has; else empty."""
    matched: int | None = None
    """When there are no results though records pass the filters: how many
    do (every record, with no filter), so the query is what found none; else None."""
    results: list[SearchHit]
    seconds: float


class Stats(BaseModel):
    index: str
    records: int
    by_kind: dict[str, int]
    by_instance: dict[str, int]
    by_topic: dict[str, int]
    by_category: dict[str, int] = Field(default_factory=dict)
    """Records per category (a card's primary category, an increment's 主分类; '-' for none)."""
    model: str | None
    dim: int | None
    judge: str | None = None
    """The judge model whose whole-text vectors the index keeps (models.txt ``judge=``)."""
    format_version: int
    """The index's schema: the migrations applied to it (a kbsearch that knows fewer refuses it)."""
    generation: int
    last_ingest: str | None
    passages: int
    """Embedded passages (title, whole text, each claim) over all records."""
    vectors: int | None
    """Vectors in the search cache, from its manifest (None when it has none yet)."""
    index_type: str | None = None
    """``flat`` (exact), ``hnsw`` (approximate, from 100k vectors) or ``milvus``, from the manifest;
    ``unreadable`` when manifest.json is there but unreadable."""
    vector_store: str | None = None
    """Where the search vectors are kept, as the first write chose (``--vectors``):
    ``faiss`` (vectors.faiss), ``milvus:PATH.db`` or ``milvus://HOST:PORT``; None before it."""
    fulltext_segments: int = 0
    """Segments of the full-text (FTS5) index: a search looks each term up in every one."""
    fulltext_merge_in: int = 0
    """Rows still to be written or deleted before a write merges the full-text index into one segment."""


class ListedRecord(BaseModel):
    id: str
    kind: str
    instance: str | None
    date: dt.date | None
    title: str
    arxiv_ids: list[str]

    @classmethod
    def from_record(cls, record: Record) -> ListedRecord:
        return cls(
            id=record.id,
            kind=record.kind.value,
            instance=record.instance,
            date=record.date,
            title=record.title,
            arxiv_ids=record.arxiv_ids,
        )


class Listing(BaseModel):
    records: list[ListedRecord]
    total: int
    """Every record the index holds."""
    matched: int
    """The records passing the filters, of which ``records`` are the first ``--limit``."""
    unknown_filters: list[UnknownFilter] = Field(default_factory=list)
    """When no record is listed: the filter's instance, topic or kinds that no
    stored record has (as ``SearchResponse.unknown_filters``); else empty."""


class Removal(BaseModel):
    """``kbsearch remove ID…``: what was removed in one transaction."""

    removed: list[str]
    records: int
    """Records left in the index."""
    generation: int
