"""``kbsearch check``: gather the evidence for each incoming item and judge it.

An item is never compared with itself or with records read from the same
file, and ``as_of`` hides everything dated later (and everything undated), so
a past day can be replayed honestly.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from kbsearch import timings
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.flags import NEW_MARKERS, table_flags
from kbsearch.dedupe.rarity import rare_name_test, rare_text_name_test
from kbsearch.dedupe.results import (
    CheckResult,
    ClaimStatus,
    Flag,
    FlagKind,
    ItemResult,
    Match,
)
from kbsearch.dedupe.rules import Embedded, PassageHit, compare, decide, judge_claim, restates_same_paper
from kbsearch.embed import Encoder
from kbsearch.records import IdMention, Record
from kbsearch.store import SearchFilter, Store

CLAIM_HITS = 5


class Checker:
    """Checks items against one store with one encoder and one config."""

    def __init__(
        self, store: Store, encoder: Encoder, config: DedupeConfig | None = None, as_of: dt.date | None = None
    ) -> None:
        self.store = store
        self.encoder = encoder
        self.config = config or DedupeConfig()
        self.as_of = as_of
        self.is_rare = rare_name_test(store, self.config)
        self.is_rare_in_text = rare_text_name_test(store, self.config)
        # Known records are immutable while a check runs; many items share candidates.
        self._loaded: dict[int, Embedded] = {}

    def check(
        self, items: list[Record], *, file: str | None, input_name: str, mentions: list[IdMention] | None = None
    ) -> CheckResult:
        embedded = self._embed(items)
        results = [self._check_one(item, file) for item in embedded]
        flags = table_flags(self.store, mentions or [], file, self.as_of)
        return CheckResult(input=input_name, model=self.encoder.model_id, as_of=self.as_of, items=results, flags=flags)

    def _embed(self, items: list[Record]) -> list[Embedded]:
        passages = [item.passages() for item in items]  # split once: encoding and Embedded share them
        texts = [p for each in passages for p in each]
        with timings.phase("embed items"):
            vectors = self.encoder.encode(texts) if texts else np.zeros((0, self.encoder.dim), np.float32)
        out, start = [], 0
        for item, own in zip(items, passages, strict=True):
            out.append(Embedded(item, vectors[start : start + len(own)], own))
            start += len(own)
        return out

    def _filter(self, item: Record, file: str | None) -> SearchFilter:
        # Only the item's own file is left out. A stored record that shares
        # the item's id but came from another file (a moved briefing, a
        # second export of a JSONL record) is an earlier version of it: the
        # very record to compare with.
        return SearchFilter(until=self.as_of, exclude_sources=[file] if file else [])

    def _check_one(self, item: Embedded, file: str | None) -> ItemResult:
        flt = self._filter(item.record, file)
        known = self._candidates(item, flt)
        matches = sorted(
            (compare(item, k, self.config, self.is_rare, self.is_rare_in_text) for k in known.values()),
            key=lambda m: (not m.same_item, -m.score),
        )
        same = [known[m.id] for m in matches if m.same_item]
        claims = self._claims(item, flt, same)
        verdict, reason = decide(item, matches, claims)
        first = _first_seen([m for m in matches if m.same_item])
        record = item.record
        return ItemResult(
            id=record.id,
            title=record.title,
            kind=record.kind,
            instance=record.instance,
            date=record.date,
            verdict=verdict,
            reason=reason,
            matches=matches[: self.config.matches_shown],
            claims=claims,
            flags=self._item_flags(record, first),
            first_seen=first,
        )

    def _candidates(self, item: Embedded, flt: SearchFilter) -> dict[str, Embedded]:
        """Nearest records by whole text and by title, plus every record sharing an id."""
        rowids: dict[int, None] = {}
        for vector in (item.whole, item.vectors[0]):
            for rowid, _, _ in self.store.search_records(vector, self.config.candidates, flt):
                rowids[rowid] = None
        by_id = self.store.rowids_with_arxiv(item.record.arxiv_ids + item.record.cited_ids)
        rowids.update((r, None) for r in self.store.restrict(by_id, flt))
        return {e.record.id: e for e in self._load(list(rowids)).values()}

    def _load(self, rowids: list[int]) -> dict[int, Embedded]:
        missing = [r for r in rowids if r not in self._loaded]
        if missing:
            records = self.store.by_rowids(missing)
            vectors = self.store.passage_vectors(missing)
            self._loaded.update((r, Embedded(records[r], vectors[r])) for r in missing if r in records and r in vectors)
        return {r: self._loaded[r] for r in rowids if r in self._loaded}

    def _claims(self, item: Embedded, flt: SearchFilter, same: list[Embedded]) -> list[ClaimStatus]:
        texts = item.record.claim_texts() or [item.whole_text]
        restatement = restates_same_paper(item.record, same)
        statuses = []
        for text in texts:
            index = item.passages.index(text) if text in item.passages else 0
            vector = item.vectors[index]
            hits = self.store.search_records(vector, CLAIM_HITS, flt)
            loaded = self._load([rowid for rowid, _, _ in hits])
            passage_hits = [PassageHit(loaded[r], idx, score) for r, score, idx in hits if r in loaded]
            statuses.append(judge_claim(text, vector, passage_hits, same, self.config, restatement))
        return statuses

    def _item_flags(self, record: Record, first: Match | None) -> list[Flag]:
        marker = record.anchor or ""
        if first is None or not NEW_MARKERS.search(marker):
            return []
        earlier = first.date is not None and (record.date is None or first.date < record.date)
        other = first.instance is not None and first.instance != record.instance
        if not (earlier or other):
            return []
        seen = f"{first.instance or 'unknown'} on {first.date or 'an unknown day'}"
        return [
            Flag(
                kind=FlagKind.claimed_new_seen_before,
                message=f"marked {marker!r} but first seen by {seen} ({first.id})",
                first_seen_id=first.id,
                first_seen_instance=first.instance,
                first_seen_date=first.date,
            )
        ]


def _first_seen(same: list[Match]) -> Match | None:
    if not same:
        return None
    # On one day, a writer's record counts as first before an unattributed card or doc.
    return min(same, key=lambda m: (m.date is None, m.date or dt.date.max, m.instance is None, m.instance or "", m.id))
