"""The store's reads of its lexical index (``store.lexical``), one method each, mixed into ``Store``.

Each reads the connection ``db`` in the reader's snapshot, with the ``lexical_plan`` the store was
given (what of FTS5's postings a search reads): the record total, the FTS text of records, the
lexical search and its scores, rare names, and the records carrying an exact reference."""

from __future__ import annotations

import sqlite3
from typing import Literal

import kbsearch.store.lexical as lexical
import kbsearch.store.lexical_rows as lexical_rows
from kbsearch.filters import SearchFilter, filter_sql
from kbsearch.store.sql import select_in_chunks


class LexicalReads:
    """What ``Store`` answers from the lexical index; ``Store.__init__`` sets both attributes."""

    db: sqlite3.Connection
    lexical_plan: lexical.LexicalPlan

    def record_total(self) -> int:
        """``count()`` from the total kept beside the trigram counts: ``count(*)`` took 35 ms at 1M."""
        return lexical.record_total(self.db, self.lexical_plan)

    def rowids_with_refs(self, refs: list[str]) -> list[int]:
        """Records carrying any of ``refs`` (``github:owner/repo``, ``url:…``)."""
        return lexical_rows.rowids_with_refs(self.db, refs)

    def refs_of(self, rowids: list[int]) -> dict[int, list[str]]:
        """Row id → the exact references (repos, URLs) stored for it."""
        found: dict[int, list[str]] = {}
        sql = "SELECT rowid, ref FROM record_refs WHERE rowid IN ({marks})"
        for rowid, ref in select_in_chunks(self.db, sql, rowids):
            found.setdefault(rowid, []).append(ref)
        return found

    def lexical_documents(self, rowids: list[int], chars: int = lexical.SCORED_CHARS) -> dict[int, str]:
        """Row id → the text the lexical index holds for it (title, body, meta), each cut to ``chars``."""
        return {rowid: "\n".join(parts) for rowid, parts in self.lexical_parts(rowids, chars).items()}

    def lexical_parts(self, rowids: list[int], chars: int = lexical.SCORED_CHARS) -> dict[int, tuple[str, str]]:
        """Row id → (title and body, meta) as the lexical index holds them, each cut to ``chars`` characters."""
        sql = (
            "SELECT rowid, substr(title, 1, ?1), substr(body, 1, ?1), substr(meta, 1, ?1) "
            f"FROM {lexical.FTS_TABLE} WHERE rowid IN ({{marks}})"
        )
        rows = select_in_chunks(self.db, sql, rowids, before=[chars])
        return {rowid: (f"{t}\n{b}", m) for rowid, t, b, m in rows}

    def lexical_search(
        self, terms: lexical.QueryTerms, limit: int, flt: SearchFilter | None = None
    ) -> list[tuple[int, float]]:
        """The best lexical matches as (rowid, score), best first, filtered before the cut."""
        clauses, params = filter_sql(flt or SearchFilter())
        return lexical.search(self.db, terms, limit, clauses, params, self.lexical_plan)

    def lexical_scores(self, terms: lexical.QueryTerms, rowids: list[int]) -> list[tuple[int, float]]:
        """(rowid, lexical score) of those of ``rowids`` that match a term (see ``lexical.score_rows``)."""
        return lexical.score_rows(self.db, terms, rowids, self.lexical_plan)

    def records_with_names(self, names: list[str], flt: SearchFilter | None = None) -> dict[str, list[int]]:
        """Rare name → the records within the filter holding it (see ``lexical.records_with_names``)."""
        if not names:
            return {}
        clauses, params = filter_sql(flt or SearchFilter())
        return lexical.records_with_names(self.db, names, clauses, params, self.lexical_plan)

    def records_holding(self, term: str, column: Literal["title", "body"], limit: int) -> int:
        """Records holding ``term`` in their title or text, counted up to ``limit`` + 1."""
        return len(self.rowids_holding(term, column, limit))

    def rowids_holding(self, term: str, column: Literal["title", "body"] | None, limit: int) -> list[int]:
        """Up to ``limit`` + 1 records holding ``term`` in their title, text or (None) anywhere."""
        return lexical.rowids_holding(self.db, term, limit, column)

    def term_weights(self, terms: lexical.QueryTerms, sample: list[str]) -> dict[str, float]:
        """Term → inverse document frequency over the whole index (see ``lexical.term_weights``)."""
        return lexical.term_weights(self.db, terms, sample, self.lexical_plan)
