"""What a warm process keeps per open store for as long as its index does not change.

Every write moves the store's generation on (``writer.py``), another
process's too, so a value made for one generation is right until the
generation read inside the caller's snapshot differs.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from kbsearch.store.facade import Store

T = TypeVar("T")


class PerGeneration(Generic[T]):
    """One ``T`` per open store, made afresh by ``make`` once a write has moved the
    store's generation on, or once ``full`` says the kept one has grown past its bound."""

    def __init__(self, make: Callable[[], T], full: Callable[[T], bool] = lambda _: False) -> None:
        self._make = make
        self._full = full
        self._by_store: weakref.WeakKeyDictionary[Store, tuple[int, T]] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def of(self, store: Store) -> T:
        """The value kept for ``store`` at its generation now (call it inside the store's snapshot)."""
        generation = store.generation
        with self._lock:
            kept = self._by_store.get(store)
            if kept is None or kept[0] != generation or self._full(kept[1]):
                kept = self._by_store[store] = (generation, self._make())
            return kept[1]
