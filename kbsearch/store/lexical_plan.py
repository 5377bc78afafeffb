"""How a lexical search reads FTS5: bounded work per query at any index size.

At a million short records a hybrid search spent most of its 0.3 s in FTS5
counting postings. Three things walked whole posting lists: the candidate
match, which ORs every term of the query and scores each record holding any
of them; ``bm25()``, which first counts the records holding each of those
terms (one more pass over each posting list); and the terms' weights, read
from ``fts5vocab``, which counts a trigram's records by walking its postings
too, beside a ``count(*)`` of the records. A common trigram ("the", "ion",
"模型") is held by hundreds of thousands of records, and a query has dozens.

The plan that replaces it:

* **Counts are stored** (``lexical_counts``): a trigram's records and the
  number of records are one primary-key read each, whatever the index holds.
  They are the counts ``fts5vocab`` gave, so term weights do not change.
* **The candidate match takes the rarest terms.** Terms go into the FTS5
  match rarest first while the records holding them add up to at most
  ``posting_budget`` (a term's count is that of its rarest trigram, the
  records FTS5 must at least visit for it); the rarest one always goes in.
  A common term left out still counts in every candidate's term coverage,
  which ranks a hybrid search (``kbsearch.fusion``), and the dense side
  brings its own candidates: what the term no longer does is bring a
  hundred thousand candidates of its own, whose bm25 is near zero anyway.
  In an index where every term of a query is rarer than the budget the
  match is the old one.

``EXHAUSTIVE`` is the plan before (every term matched, counts walked), kept
so that the benchmarks measure both in one process (bench/lexical_scale.py,
bench/search_quality.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LexicalPlan:
    """How much of FTS5's postings one lexical search may read."""

    stored_counts: bool = True
    """Term counts and the number of records from ``lexical_counts``; False:
    walked from FTS5's postings (``fts5vocab``) and counted (``count(*)``)."""
    posting_budget: int | None = 2_000
    """Records the candidate match may visit, summed over its terms; the
    rarest terms go in first. None: every term."""


EXHAUSTIVE = LexicalPlan(stored_counts=False, posting_budget=None)
DEFAULT_PLAN = LexicalPlan()


def rarest_within(counts: dict[str, int], budget: int | None) -> list[str]:
    """The terms (keys), rarest first, while their counts add up to at most
    ``budget``, and at least the rarest one; all of them, in their own
    order, without a budget."""
    if budget is None:
        return list(counts)
    chosen: list[str] = []
    spent = 0
    for term, count in sorted(counts.items(), key=lambda item: (item[1], item[0])):
        if chosen and spent + count > budget:
            break
        chosen.append(term)
        spent += count
    return chosen
