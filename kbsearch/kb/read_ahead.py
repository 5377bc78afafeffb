"""An index's database read into the OS's page cache, for a process that stays
(``kbsearch serve``, the TUI); see ``kbsearch.store.page_cache``."""

from __future__ import annotations

import threading
from pathlib import Path

from kbsearch.store import page_cache
from kbsearch.store.database import DB_NAME


def read_ahead(root: Path) -> threading.Thread | None:
    """Start reading the index database at ``root`` ahead, in the background,
    when it fits in half the memory available; None when it is not read."""
    return page_cache.read_ahead(root / DB_NAME)
