"""Typed results of ``audit``: its clusters of the same item and their members, which the CLI
prints as text or JSON and the TUI shows (moved out of ``results``, which keeps ``check``'s)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field

from kbsearch.dedupe.audit_summary import InstanceSummary
from kbsearch.dedupe.results import Flag
from kbsearch.records import Kind, Record
from kbsearch.responses import UnknownFilter


class ClusterMember(BaseModel):
    id: str
    kind: Kind
    title: str
    instance: str | None
    date: dt.date | None
    anchor: str | None = None
    same_as: str | None = None  # the earliest record this one was itself judged the same item as
    reason: str | None = None  # why it is the same item as ``same_as``
    signed_at: str | None = None  # "HH:MM" its briefing's signature gives (``Record.signed_at``)

    @classmethod
    def of(cls, record: Record, seen: tuple[Record, str] | None) -> ClusterMember:
        """``record`` as a cluster lists it, with the record it was judged the same item as, and why."""
        return cls(
            id=record.id,
            kind=record.kind,
            title=record.title,
            instance=record.instance,
            date=record.date,
            anchor=record.anchor,
            same_as=seen[0].id if seen else None,
            reason=(seen[1] or None) if seen else None,
            signed_at=record.signed_at,
        )

    @property
    def role(self) -> str:
        """How a cluster lists it after its first record: a repeat ("again"), or the
        living-doc section that holds the item ("in doc"), which repeats no one."""
        return "in doc" if self.kind is Kind.doc_section else "again"


class SameDayTie(BaseModel):
    """The cluster's first item shares its day with other writers' items: who was first that day."""

    ids: list[str]
    """The other writers' items of the first item's day (in the order shown)."""
    decided_by: Literal["signed time", "loading order"]
    """``signed time``: every one of them gives its signing time and the first's is the earliest;
    ``loading order``: a time is missing (or equal), so the one stored first is first."""


class Cluster(BaseModel):
    size: int
    first_seen: ClusterMember
    repeats: list[ClusterMember]
    held_in_doc: ClusterMember | None = None  # of ``repeats``, a section dated before first_seen: it held the item
    shared_ids: list[str] = Field(default_factory=list)
    instances: list[str] = Field(default_factory=list)
    same_day: SameDayTie | None = None  # other writers' items of first_seen's day, and what put it first


class AuditResult(BaseModel):
    model: str
    records: int
    """Records the filter chose (all of them unfiltered): the clusters shown hold
    at least one of them, and the flags are theirs."""
    compared: int
    """Records compared: every record with a vector, whatever the filter."""
    clusters: list[Cluster]
    claimed_new_seen_before: list[Flag]
    unknown_filters: list[UnknownFilter] = Field(default_factory=list)
    """When the filter chose no record: its instance if no stored record has
    it (as ``SearchResponse.unknown_filters``); else empty."""
    by_instance: list[InstanceSummary] = Field(default_factory=list)  # per writer: items, repeats, flags
    one_instance_left_out: int = 0  # ``--across``: clusters of one instance not shown
