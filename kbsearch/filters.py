"""What a search, listing or check may look at: the filter every read takes,
and the SQL over ``records`` it stands for.

One module for the concept, below the store: the CLI's server client builds
and reads the documents that carry a filter without importing SQLite, FAISS
or numpy (the SQL is only strings), and the store applies the SQL inside the
vector and lexical searches, before the top-k cut, so a filter never empties
a page of results.
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, model_validator

from kbsearch.errors import KbError
from kbsearch.records import Kind


def empty_text_filter(field: str, value: str | None, *, command: str = "{}", part: str = "option") -> str | None:
    """Why an instance, topic, category or section filter given empty is refused, else None: an
    empty text filters nothing (every section contains it), silently. The CLI and the
    server say it alike, each naming a command (``command``: how its reader writes one,
    ``'kbsearch {}'`` on the command line) and what was given (``part``: an option, a field)."""
    if value is None or value.strip():
        return None
    if field == "section":
        shown = command.format("show")
        return f"the value is empty: give a section text such as '§1.3' (as {shown} prints it), or leave the {part} out"
    listed = command.format("stats")
    return (
        f"the value is empty: name one ({listed} lists the instances, topics and categories), or leave the {part} out"
    )


class SearchFilter(BaseModel):
    """Restrictions applied inside the vector and lexical searches, before the top-k cut."""

    kinds: list[Kind] = []
    instance: str | None = None
    topic: str | None = None
    category: str | None = None
    """A paper card's primary category, or an increment's 主分类 (inference, cs.CL), any case."""
    since: dt.date | None = None
    until: dt.date | None = None
    """Records dated after this day are left out, and so are undated ones (``search --until``)."""
    not_after: dt.date | None = None
    """Records dated after this day are left out; undated ones (a living doc stating no date) stay,
    as they cannot be shown to be later. ``check``'s as-of: ``--as-of``, else the item's own date
    (what was written after it is no evidence that it repeats anything)."""
    section: str | None = None
    exclude_ids: list[str] = []

    @model_validator(mode="after")
    def _dates_in_order(self) -> SearchFilter:
        # A KbError, not pydantic's ValueError: every surface (the CLI, the
        # server, the TUI) reports it as the user's mistake, not a bug.
        if self.since and self.until and self.since > self.until:
            raise KbError(
                f"--since {self.since} is later than --until {self.until}, so no record can match",
                hint="swap the two dates, or leave one out",
            )
        return self

    def is_empty(self) -> bool:
        return self == SearchFilter()

    def include_part(self) -> SearchFilter:
        """The filter without its exclusions: what is kept, not what is dropped."""
        return self.model_copy(update={"exclude_ids": []})


def require_limit(limit: int | None) -> None:
    """A listing's ``--limit``: at least one record, or none given (all)."""
    if limit is not None and limit < 1:
        raise KbError(f"--limit must be at least 1, not {limit}", hint="leave --limit out to list every record")


def filter_sql(flt: SearchFilter) -> tuple[list[str], list[object]]:
    """(clauses to AND together, their parameters); ``["1"]`` when nothing is filtered."""
    clauses: list[str] = ["1"]
    params: list[object] = []
    if flt.kinds:
        clauses.append(f"kind IN ({','.join('?' * len(flt.kinds))})")
        params += [k.value for k in flt.kinds]
    for column in ("instance", "topic", "category"):
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
    """The filter's excluded ids as SQL: ``NOT IN`` to keep the rest,
    ``IN`` to list the excluded records themselves."""
    clauses: list[str] = []
    params: list[object] = []
    if flt.exclude_ids:
        clauses.append(f"id {operator} ({','.join('?' * len(flt.exclude_ids))})")
        params += flt.exclude_ids
    return clauses, params
