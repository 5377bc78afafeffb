"""Stored rows for ``KeptRecords`` without a store: each row's digest, at one generation."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Rows:
    """``kept_records.StoredRows``: ``digests`` per rowid (a row left out is gone), and who asked."""

    generation: int = 0
    digests: dict[int, bytes] = field(default_factory=dict)
    asked: list[list[int]] = field(default_factory=list)

    def row_digests(self, rowids: list[int]) -> dict[int, bytes]:
        self.asked.append(list(rowids))
        return {r: self.digests[r] for r in rowids if r in self.digests}
