"""What a search, listing or check may look at: the filter every read takes.

Kept apart from the store so that the CLI's server client can build and read
the documents that carry it without importing SQLite, FAISS or numpy.
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, model_validator

from kbsearch.errors import KbError
from kbsearch.records import Kind


class SearchFilter(BaseModel):
    """Restrictions applied inside the vector and lexical searches, before the top-k cut."""

    kinds: list[Kind] = []
    instance: str | None = None
    topic: str | None = None
    since: dt.date | None = None
    until: dt.date | None = None
    """Records dated after this day are left out, and so are undated ones (an exact replay of a past day)."""
    not_after: dt.date | None = None
    """Records dated after this day are left out; undated ones (living docs) stay. A dated briefing is
    checked so by default: what was written after it is no evidence that it repeats anything."""
    section: str | None = None
    exclude_sources: list[str] = []
    """Files whose records are left out (a file is never checked against itself)."""
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
        return self.model_copy(update={"exclude_ids": [], "exclude_sources": []})


def require_limit(limit: int | None) -> None:
    """A listing's ``--limit``: at least one record, or none given (all)."""
    if limit is not None and limit < 1:
        raise KbError(f"--limit must be at least 1, not {limit}", hint="leave --limit out to list every record")
