"""What the records a filter keeps hold: their distinct instances, topics or categories,
their span of dates. Asked only to explain a filter that found nothing
(``kbsearch.kb.empty``), so each is a plain scan of ``records``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from kbsearch.filters import SearchFilter, where_sql

if TYPE_CHECKING:
    from kbsearch.store.facade import Store

Named = Literal["instance", "topic", "category"]


def distinct_values(store: Store, column: Named, flt: SearchFilter) -> list[str]:
    """The sorted values of ``column`` among the records ``flt`` keeps (none for a record without one)."""
    where, params = where_sql(flt)
    sql = f"SELECT DISTINCT {column} FROM records WHERE {where} AND {column} IS NOT NULL"
    return sorted(row[0] for row in store.db.execute(sql, params))


def date_span(store: Store, flt: SearchFilter) -> list[str]:
    """The first and last date of the records ``flt`` keeps; empty when none has a date."""
    where, params = where_sql(flt)
    low, high = store.db.execute(f"SELECT min(date), max(date) FROM records WHERE {where}", params).fetchone()
    return [str(low), str(high)] if low else []
