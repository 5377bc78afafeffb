"""Finding records by meaning and by their exact words, names and ids.

``search`` (from ``hybrid``) runs the dense search (FAISS) and the lexical one
(FTS5) under one filter and fuses them into a ``SearchResponse``; ``ranking``
ranks the candidates of one search. Beside them:
``fusion`` (how the two scores are weighed into one), ``exact`` (the records
carrying a query's arXiv ids, repos and URLs, in tiers, pinned first) and
``items`` (the records of one item among the best hits, lifted together) and
``candidates`` (each side's candidates, the dense side's walk beside the lexical one).
"""

from __future__ import annotations

from kbsearch.responses import SearchHit, SearchMode, SearchResponse
from kbsearch.search.candidates import gather
from kbsearch.search.hybrid import HIT_TEXT_CHARS, search
from kbsearch.search.ranking import DEFAULT_FUSION, rank

__all__ = [
    "DEFAULT_FUSION",
    "HIT_TEXT_CHARS",
    "SearchHit",
    "SearchMode",
    "SearchResponse",
    "gather",
    "rank",
    "search",
]
