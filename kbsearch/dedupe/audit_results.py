"""Typed results of ``audit``: its clusters of the same item and their members, which the CLI
prints as text or JSON and the TUI shows (moved out of ``results``, which keeps ``check``'s)."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, Field

from kbsearch.dedupe.audit_summary import InstanceSummary
from kbsearch.dedupe.results import Flag
from kbsearch.records import Kind
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

    @property
    def role(self) -> str:
        """How a cluster lists it after its first record: a repeat ("again"), or the
        living-doc section that holds the item ("in doc"), which repeats no one."""
        return "in doc" if self.kind is Kind.doc_section else "again"


class Cluster(BaseModel):
    size: int
    first_seen: ClusterMember
    repeats: list[ClusterMember]
    held_in_doc: ClusterMember | None = None  # of ``repeats``, a section dated before first_seen: it held the item
    shared_ids: list[str] = Field(default_factory=list)
    instances: list[str] = Field(default_factory=list)


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
