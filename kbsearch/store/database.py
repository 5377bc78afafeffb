"""Opening the index database, and SQLite's failures in a user's words.

Writers and the readers of a writable folder share one mode: WAL, so a
reader sees the last committed state while a writer works. A folder this
process cannot write is opened immutable: WAL would need a writable ``-shm``
file even to read, and nothing can change there under us.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from kbsearch.errors import KbError
from kbsearch.store.migrations import migrate

DB_NAME = "kb.sqlite"
# How long a writer waits for SQLite's own lock; the file lock in kb.py
# normally keeps writers apart before they get here.
BUSY_TIMEOUT = 30.0
# SQLite's page cache per connection (its default is 2 MB), filled only as
# pages are read. A record of megabytes (one pasted line) spans thousands of
# overflow pages; with the default cache a long-lived reader (the TUI) reads
# each of them from the OS again on every search that returns it.
CACHE_KIB = 32 * 1024


# A search reads a few hundred pages scattered over the file (a hundred-odd
# float32 vectors, FTS5's postings): mapped, each is a memory read instead of
# a read() call. Hybrid search at 100k records took 28.8 ms p50 against 32.3
# (two connections to one index in one process, alternating). Only searching
# connections map the file: what a process touches through the map counts in
# its resident memory, and an audit or a reindex, which read every vector,
# would show the whole file there. SQLite caps the size at its own maximum.
SEARCH_MAP_BYTES = 1 << 40


def map_for_search(db: sqlite3.Connection) -> None:
    """Read this connection's database through a memory map from now on (see ``SEARCH_MAP_BYTES``)."""
    db.execute(f"PRAGMA mmap_size = {SEARCH_MAP_BYTES}")


def writable(root: Path) -> bool:
    """Whether this process may write the index folder and the files in it.

    A folder that doesn't exist yet counts as writable when its nearest
    existing parent is.
    """
    probe = root
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not os.access(probe, os.W_OK):
        return False
    files = [p for p in root.iterdir() if p.is_file()] if root.is_dir() else []
    # A running writer's temp and WAL side files come and go while we look:
    # one that vanished since the listing is no sign of a read-only folder.
    return all(os.access(p, os.W_OK) or not p.exists() for p in files)


def read_only_error(root: Path) -> KbError:
    return KbError(
        "the index folder is read-only for this user; nothing was written",
        path=str(root),
        hint="ask for write access, or copy the index and point --index at the copy",
    )


def file_identity(path: Path | str) -> tuple[int, int] | None:
    """(device, inode) of ``path``; None when there is no such file."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


def replaced(root: Path, identity: tuple[int, int] | None) -> bool:
    """Whether ``root``'s database is no longer the file of ``identity`` (a store's, opened
    earlier): the folder was removed, or another database put in its place. A server asks before
    each read: ``os.path.join`` takes about half the time of ``root / DB_NAME``."""
    return identity is None or file_identity(os.path.join(root, DB_NAME)) != identity


def replaced_error(root: Path) -> KbError:
    """A long-lived process (``kbsearch serve``, the TUI) whose index folder was removed, or
    whose database another was put in place of, since it opened it: a write would go into
    the removed file, lost, with a half-made folder left where the index was."""
    return KbError(
        "the index folder was removed or replaced while this program had it open; nothing was written",
        path=str(root),
        hint="restart 'kbsearch serve' or the TUI, so that it opens the index there now",
    )


def connect(root: Path, *, read_only: bool) -> sqlite3.Connection:
    path = root / DB_NAME
    if read_only:
        uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
        db = sqlite3.connect(uri, uri=True, isolation_level=None)
    else:
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None)
    try:
        if not read_only:
            db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA foreign_keys = ON")
        db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
    except BaseException:
        db.close()  # a file that is no database: no connection left open on it
        raise
    return db


def _remove_new_side_files(root: Path, before: set[str]) -> None:
    """After a database that would not open: take away the WAL side files this open made (an
    empty WAL), so that a refused open, doctor's too, leaves the folder as it found it."""
    wal = root / f"{DB_NAME}-wal"
    if f"{DB_NAME}-wal" in before or not wal.exists() or wal.stat().st_size > 0:
        return
    for name in (f"{DB_NAME}-wal", f"{DB_NAME}-shm"):
        if name not in before:
            (root / name).unlink(missing_ok=True)


DISK_WRITE_ERRORS = frozenset(
    {"SQLITE_FULL", "SQLITE_IOERR_WRITE", "SQLITE_IOERR_FSYNC", "SQLITE_IOERR_TRUNCATE", "SQLITE_IOERR_SHMSIZE"}
)
"""SQLite's names for a write the disk refused: ENOSPC, or EFBIG past a file-size limit."""


def write_error(err: sqlite3.Error, root: Path) -> KbError:
    """The KbError for a write SQLite refused; the transaction was rolled back."""
    text = str(err).lower()
    if "readonly" in text or "read-only" in text:
        return read_only_error(root)
    if "full" in text or getattr(err, "sqlite_errorname", "") in DISK_WRITE_ERRORS:
        # A full disk is SQLITE_FULL; a file-size limit (EFBIG) or a full disk met while
        # writing the journal or the WAL comes back as an I/O error of the write itself.
        return KbError(
            f"the index database could not write to disk ({err}): the disk is full or a file-size limit was "
            "reached; nothing was written",
            path=str(root),
            hint="free some space or raise the file-size limit ('ulimit -f'), then run the command again",
        )
    if "locked" in text or "busy" in text:
        return KbError(
            f"the index database stayed locked for {BUSY_TIMEOUT:.0f}s; nothing was written",
            path=str(root),
            hint="another program holds it open for writing; try again",
        )
    return KbError(
        f"the index database refused the write ({err}); nothing was written",
        path=str(root),
        hint="run 'kbsearch doctor'",
    )


def open_database(root: Path, *, create: bool, upgrade: bool) -> tuple[sqlite3.Connection, bool]:
    """(the connection, whether it is read-only), the schema brought up to date
    unless ``upgrade`` is False. A folder this process can't write is opened
    read-only, or refused with ``create``."""
    db_path = root / DB_NAME
    if not db_path.exists() and not create:
        raise KbError(
            f"no index at {root}",
            hint="build one with 'kbsearch ingest PATH', or point --index / KBSEARCH_INDEX at one",
        )
    read_only = not writable(root)
    if read_only and create:
        raise read_only_error(root)
    before = {p.name for p in root.iterdir()} if root.is_dir() else set()
    try:
        if not read_only:
            root.mkdir(parents=True, exist_ok=True)
        db = connect(root, read_only=read_only)
        try:
            migrate(db, read_only=read_only or not upgrade)
        except BaseException:
            db.close()  # a refused upgrade leaves no connection (and no WAL files) behind
            raise
    except sqlite3.OperationalError as err:
        raise write_error(err, root) from err
    except sqlite3.DatabaseError as err:
        if not read_only:
            _remove_new_side_files(root, before)
        raise KbError(
            f"the index database is unreadable: {err}",
            path=str(db_path),
            hint="restore it from a backup, or delete the index folder and ingest again",
        ) from err
    except OSError as err:
        raise KbError(
            f"cannot open the index: {err.strerror}", path=str(root), hint="check the folder's permissions"
        ) from err
    return db, read_only
