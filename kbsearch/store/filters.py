"""The SQL over ``records`` that a ``SearchFilter`` stands for.

``SearchFilter`` itself lives in ``kbsearch.filters``, importable without
the store (the CLI's server client builds and reads filters). The SQL
applies inside the vector and lexical searches, before the top-k cut, so a
filter never empties a page of results.
"""

from __future__ import annotations

from kbsearch.filters import SearchFilter

__all__ = ["SearchFilter", "filter_sql"]


def filter_sql(flt: SearchFilter) -> tuple[list[str], list[object]]:
    """(clauses to AND together, their parameters); ``["1"]`` when nothing is filtered."""
    clauses: list[str] = ["1"]
    params: list[object] = []
    if flt.kinds:
        clauses.append(f"kind IN ({','.join('?' * len(flt.kinds))})")
        params += [k.value for k in flt.kinds]
    for column in ("instance", "topic"):
        value = getattr(flt, column)
        if value:
            clauses.append(f"{column} = ? COLLATE NOCASE")
            params.append(value)
    if flt.since:
        clauses.append("date >= ?")
        params.append(flt.since.isoformat())
    if flt.until:
        clauses.append("date <= ?")
        params.append(flt.until.isoformat())
    if flt.not_after:
        clauses.append("(date IS NULL OR date <= ?)")
        params.append(flt.not_after.isoformat())
    if flt.section:
        clauses.append("instr(lower(coalesce(section, '')), lower(?)) > 0")
        params.append(flt.section)
    excluded, excluded_params = exclusion_sql(flt, "NOT IN")
    return clauses + excluded, params + excluded_params


def where_sql(flt: SearchFilter | None) -> tuple[str, list[object]]:
    """The filter as one ``WHERE`` condition over ``records``, with its parameters."""
    clauses, params = filter_sql(flt or SearchFilter())
    return " AND ".join(clauses), params


def exclusion_sql(flt: SearchFilter, operator: str) -> tuple[list[str], list[object]]:
    """The filter's excluded ids and files as SQL: ``NOT IN`` to keep the rest,
    ``IN`` to list the excluded records themselves."""
    clauses: list[str] = []
    params: list[object] = []
    if flt.exclude_ids:
        clauses.append(f"id {operator} ({','.join('?' * len(flt.exclude_ids))})")
        params += flt.exclude_ids
    if flt.exclude_sources:
        clauses.append(f"coalesce(file, '') {operator} ({','.join('?' * len(flt.exclude_sources))})")
        params += flt.exclude_sources
    return clauses, params
