"""Stored rows for ``KeptRecords`` without a store: each row's digest, at one generation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

    from kbsearch.kb import KnowledgeBase


@dataclass
class Rows:
    """``kept_records.StoredRows``: ``digests`` per rowid (a row left out is gone), and who asked."""

    generation: int = 0
    digests: dict[int, bytes] = field(default_factory=dict)
    asked: list[list[int]] = field(default_factory=list)

    def row_digests(self, rowids: list[int]) -> dict[int, bytes]:
        self.asked.append(list(rowids))
        return {r: self.digests[r] for r in rowids if r in self.digests}


def watch_builds(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every rowid a check builds from its stored row, from now on."""
    built: list[int] = []
    real = kb.store.by_rowids_digested
    monkeypatch.setattr(kb.store, "by_rowids_digested", lambda rowids: built.extend(rowids) or real(rowids))
    return built
