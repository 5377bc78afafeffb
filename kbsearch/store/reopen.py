"""A long-lived process (``kbsearch serve``, the TUI) follows its index folder being removed or rebuilt.

A store keeps its database open: after ``rm -rf INDEX`` SQLite goes on reading the unlinked file,
and after a new ``kbsearch ingest`` into the same path it still reads the old one, so a server
answered searches and checks from an index that was no longer there. Each use of the store
outside a transaction now compares the file it opened with the one at the path (one ``stat``,
``database.replaced``): rebuilt, the old store is closed and the caller opens the new one (its
model checked as at start); removed, the read is refused in one line. A store in the middle of a
read or a write (in a transaction) is never swapped: the read finishes on the file it began on.
Writes check again under the writer lock (``kbsearch.kb.writer_lock``). A database a newer kbsearch
upgraded under it (a schema this one does not know) is refused in one line: restart the server.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kbsearch.errors import KbError
from kbsearch.store.database import DB_NAME, replaced
from kbsearch.store.migrations import require_known, schema

if TYPE_CHECKING:
    from kbsearch.store.facade import Store


def removed_error(root: Path) -> KbError:
    return KbError(
        "the index folder was removed while this program had it open; nothing was read from the removed copy",
        path=str(root),
        hint="build it again there with 'kbsearch ingest PATH' (this program then reads it), "
        "or restart 'kbsearch serve' or the TUI with --index at another folder",
    )


def current(store: Store | None, root: Path) -> Store | None:
    """``store`` while its database is the one at ``root`` (or a read or write on it is under way);
    None, ``store`` closed, when another database was put there (the caller opens that one).
    ``removed_error`` when there is none: the old store stays open, so that every later read
    says so too (not "no index", nor a fresh index made by an accept) until one is built there."""
    if store is None or store.db.in_transaction:
        return store
    if not replaced(root, store.identity):
        # A newer kbsearch may have upgraded the index under it: refused in one line, not misread.
        require_known(schema(store.db), while_open=True)
        return store
    if not (root / DB_NAME).exists():
        raise removed_error(root)
    store.close()
    return None
