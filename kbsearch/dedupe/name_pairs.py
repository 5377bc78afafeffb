"""Audit's pairs of records sharing a rare coined name, as ``check`` gathers them.

``check`` reads, beside an item's nearest records, every record holding one
of its rare coined names (``names.rare_name_candidates``): a retelling in
another language, or a living-doc section's line naming the item, can share
little but the name and sit far from the item in vector space. Audit compares
a record with its nearest records only, so it missed such a pair that check
would find (probe: "PagedRadix" told in English and in Chinese, each 14th to
17th nearest of the other among 437 records, and third to ninth across the
languages).

Each record's coined names (``features.latin_names`` of its whole text, the
names check looks up) are kept while the roster is read, as two 64-bit keys
a name (a hash of it and the row). A name at least two and at most
``rare_name_records`` records name is looked up by check's own lookup
(``NameHolders`` through ``rare_name_candidates``), which also counts the
records holding it only as a word; when that count is rare too, every two of
its holders are a candidate pair: at most ``rare`` records, ten pairs with
the default 5. A name one record alone names is not looked up: at a million
records most names are, and their lookups would cost more than the audit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kbsearch.dedupe.features import latin_names
from kbsearch.dedupe.names import MIN_CHARS, NameHolders, rare_name_candidates
from kbsearch.store import SearchFilter

BATCH = 5_000
"""Records read at once to tell the names of the rare keys."""


@dataclass
class NameKeys:
    """Every record's coined names as (key of the name, row), a chunk of records at a time."""

    keys: list[np.ndarray] = field(default_factory=list)
    rows: list[np.ndarray] = field(default_factory=list)

    def note(self, rows: list[int], texts: list[str]) -> None:
        """The names of each of ``rows``' whole texts (one chunk of the roster)."""
        keys: list[int] = []
        owners: list[int] = []
        for row, text in zip(rows, texts, strict=True):
            names = names_of(text)
            keys += [_key(name) for name in names]
            owners += [row] * len(names)
        self.keys.append(np.array(keys, dtype=np.int64))
        self.rows.append(np.array(owners, dtype=np.int64))

    def rare(self, most: int) -> tuple[np.ndarray, np.ndarray]:
        """The keys named by at least two and at most ``most`` records, and one such row of each."""
        if not self.keys:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        keys, rows = np.concatenate(self.keys), np.concatenate(self.rows)
        order = np.argsort(keys, kind="stable")
        keys, rows = keys[order], rows[order]
        starts = np.flatnonzero(np.r_[True, np.diff(keys) != 0])
        sizes = np.diff(np.r_[starts, len(keys)])
        chosen = starts[(sizes >= 2) & (sizes <= most)]
        return keys[chosen], rows[chosen]


def names_of(text: str) -> set[str]:
    """The coined names ``check`` looks up for an item of this whole text (``Embedded.names``)."""
    return {name for name in latin_names(text) if len(name) >= MIN_CHARS}


def _key(name: str) -> int:
    return hash(name)


def name_pairs(names: NameKeys, holders: NameHolders, rowids: np.ndarray, rare: int) -> tuple[np.ndarray, np.ndarray]:
    """Every two records holding a name held by at most ``rare`` records (check's count), as row pairs."""
    keys, rows = names.rare(rare)
    left: list[np.ndarray] = []
    right: list[np.ndarray] = []
    for start in range(0, len(keys), BATCH):
        batch = rows[start : start + BATCH]
        records = holders.store.by_rowids(int(rowids[r]) for r in batch.tolist())
        for key, row in zip(keys[start : start + BATCH].tolist(), batch.tolist(), strict=True):
            record = records.get(int(rowids[row]))
            name = next((n for n in names_of(record.embed_text()) if _key(n) == key), None) if record else None
            if name is None:
                continue
            held = np.array(rare_name_candidates(holders, frozenset({name}), SearchFilter(), rare), dtype=np.int64)
            at = np.searchsorted(rowids, held)
            found = np.unique(at[(at < len(rowids)) & (rowids[np.minimum(at, len(rowids) - 1)] == held)])
            i, j = np.triu_indices(len(found), k=1)
            left.append(found[i])
            right.append(found[j])
    if not left:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(left), np.concatenate(right)
