"""Since when a living-doc section held an item: its ``first_date`` when its first text did.

A section is dated by the day its text last changed (``ingest.section_dates``): an editor's
fold that adds a line to it dates it anew. What it said before is kept as ``first_text``
with ``first_date``; when that first text already had its word on the item (named its
paper or its coined name, or copied a claim: ``finer.section_on_item``, the rule of
``check``'s section evidence and ``audit``'s "in doc"), the section held the item since
``first_date`` (probe 23: QuillFP4, in doc/serving §1.5 since 10-01, read as first seen
there on 10-02 after the evening's fold added Osprey to the section). An item the fold
itself brought into the section is held only since the change.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping

import numpy as np

from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.finer import item_names, section_on_item
from kbsearch.dedupe.results import Match
from kbsearch.dedupe.rules import Embedded
from kbsearch.records import Kind, Record
from kbsearch.store import Store
from kbsearch.text.ids import extract_arxiv_ids

Named = Callable[[Record], frozenset[str]]
"""An item's coined names, which a section names it by (``finer.item_names``)."""


def names_of(item: Record, config: DedupeConfig, name_count: Callable[[str], int]) -> frozenset[str]:
    """``finer.item_names`` of a record read without its vectors (audit's clusters)."""
    return item_names(Embedded(item, np.zeros((0, 1), np.float32)), config, name_count)


class HeldSince:
    """The sections' days of holding one item, for its first seen and "held since"."""

    def __init__(self, item: Record, known: Mapping[str, Embedded], store: Store, coined: frozenset[str]) -> None:
        self.item, self.known, self.store, self.coined = item, known, store, coined

    def dated(self, matches: list[Match]) -> list[Match]:
        """``matches``, each section's dated the day it is known to have held the item."""
        out = []
        for match in matches:
            day = self._since(match) if match.kind is Kind.doc_section else None
            out.append(match if day is None else match.model_copy(update={"date": day}))
        return out

    def _since(self, match: Match) -> dt.date | None:
        kept = self.known.get(match.id)
        section = kept.record if kept is not None else self.store.get(match.id)
        return None if section is None else first_holding(self.item, section, self.coined)


def first_holding(item: Record, section: Record, coined: frozenset[str]) -> dt.date | None:
    """``section.first_date`` when the section's first text had its word on ``item``, else None."""
    if section.first_date is None or section.first_text is None:
        return None
    first = section.model_copy(
        update={"text": section.first_text, "arxiv_ids": extract_arxiv_ids(f"{section.title}\n{section.first_text}")}
    )
    return section.first_date if section_on_item(item, first, coined) is not None else None
