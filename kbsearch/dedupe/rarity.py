"""Whether a name is rare enough in the store to identify an item (check and audit ask)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from kbsearch.dedupe.config import DedupeConfig
from kbsearch.store import Store


def rare_name_test(store: Store, config: DedupeConfig) -> Callable[[str], bool]:
    """Whether a title name is rare enough in this store to identify an item:
    held by at most ``rare_name_min`` titles or ``rare_name_share`` of them."""
    limit = int(max(config.rare_name_min, config.rare_name_share * store.count()))
    return _rarity(store, "title", limit)


def rare_text_name_test(store: Store, config: DedupeConfig) -> Callable[[str], bool]:
    """Whether a name is held by few enough records' texts to identify an item."""
    return _rarity(store, "body", config.rare_lead_name_records)


def _rarity(store: Store, column: Literal["title", "body"], limit: int) -> Callable[[str], bool]:
    # Counted once per name and asked only for names two records share: the
    # store does not change during a check, and counting every title up front
    # costs time that grows with the store.
    counts: dict[str, int] = {}

    def is_rare(name: str) -> bool:
        if name not in counts:
            counts[name] = store.records_holding(name, column, limit)
        return counts[name] <= limit

    return is_rare
