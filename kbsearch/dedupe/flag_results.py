"""The flags of ``check`` and ``audit`` results: an item marked new that was seen before, or an id
table at odds with itself (``results`` re-exports them, where they were first)."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Protocol

from pydantic import BaseModel


class FlagKind(StrEnum):
    claimed_new_seen_before = "claimed_new_seen_before"
    """Marked 首次锚入/本次新增/new, but the item was known earlier or from another instance."""
    contradictory_status = "contradictory_status"
    """The briefing's own id table lists one id both as new and as anchored earlier."""


class _Seen(Protocol):
    """What a flag names of the record that had the item first (a record or a match)."""

    id: str
    instance: str | None
    date: dt.date | None


class Flag(BaseModel):
    kind: FlagKind
    message: str
    id: str | None = None  # audit: the flagged record (check: the item flagged, or None of an input's id table)
    instance: str | None = None  # the flagged record's or id table's writer
    date: dt.date | None = None  # the flagged record's or id table's day
    arxiv_id: str | None = None
    first_seen_id: str | None = None
    first_seen_instance: str | None = None
    first_seen_date: dt.date | None = None
    anchored_on: str | None = None
    stopped_at_gate: str | None = None  # audit: the row's item, a DUPLICATE the gate skipped (``stopped``)

    @classmethod
    def seen_before(cls, first: _Seen, message: str, arxiv_id: str | None = None) -> Flag:
        """Marked new, but ``first`` had the item earlier or from another instance."""
        return cls(
            kind=FlagKind.claimed_new_seen_before,
            message=message,
            arxiv_id=arxiv_id,
            first_seen_id=first.id,
            first_seen_instance=first.instance,
            first_seen_date=first.date,
        )
