"""The files of an index folder, for the rare run that must take them away."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kbsearch.errors import KbError
from kbsearch.store.database import DB_NAME
from kbsearch.store.manifest import MANIFEST_NAME
from kbsearch.store.vector_cache import VECTORS_NAME

if TYPE_CHECKING:
    from kbsearch.store.facade import Store

INDEX_FILES = (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", MANIFEST_NAME, VECTORS_NAME)
"""The database, its WAL side files, and the vector cache."""


REBUILD = "restore kb.sqlite from a backup, or delete the index folder and ingest the files again"


class UnusableIndex(KbError):
    """The index folder's files rule out opening its database: no command may
    read it, and no write may start a new database over what is left."""


class UnfinishedIndex(KbError):
    """The database holds no committed write: a first ingest stopped (killed,
    or the machine went down) before its one transaction committed."""

    @classmethod
    def at(cls, root: Path) -> UnfinishedIndex:
        return cls(
            "the index was never finished: its first ingest stopped before it committed anything "
            "(or is running right now)",
            path=str(root),
            hint="unless an ingest is running, run 'kbsearch ingest PATH' again; it builds the index from the start",
        )


def unusable_files(root: Path, *, create: bool) -> KbError | None:
    """Why the folder's files rule out opening the database, if they do.

    SQLite would open a missing or empty ``kb.sqlite`` as a new, empty
    database: a read would then answer "no results" and a write would build
    a fresh index beside a cache of the old one. Only a write into a folder
    without a vector cache may create one (or finish creating it: a first
    ingest running at this moment starts from an empty file)."""
    database = root / DB_NAME
    cache = [name for name in (MANIFEST_NAME, VECTORS_NAME) if (root / name).exists()]
    if not database.exists() and cache:
        return UnusableIndex(
            f"{DB_NAME} is missing beside {' and '.join(cache)}; the vector cache alone is no index",
            path=str(root),
            hint=REBUILD,
        )
    if not database.exists() or database.stat().st_size > 0:
        return None
    if cache:
        return UnusableIndex(f"{DB_NAME} is empty (0 bytes)", path=str(root), hint=REBUILD)
    return None if create else UnfinishedIndex.at(root)


def remove_index_files(root: Path) -> None:
    for name in INDEX_FILES:
        (root / name).unlink(missing_ok=True)


def remove_if_empty(store: Store | None, root: Path) -> bool:
    """After a failed first write (an error, Ctrl-C): close and remove the database it created
    when nothing was committed to it, not leave the empty schema a refused ingest never leaves."""
    if store is None or store.count() > 0:
        return False
    store.close()
    remove_index_files(root)
    return True


def missing_folders(root: Path) -> list[Path]:
    """``root`` and those of its parents that do not exist yet, deepest first:
    what ``mkdir(parents=True)`` would create."""
    missing = []
    for folder in [root, *root.parents]:
        if folder.exists():
            break
        missing.append(folder)
    return missing


def remove_folders(folders: list[Path]) -> None:
    """Remove folders this run created, deepest first, as long as each is empty again."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:  # not empty: someone else put something there meanwhile
            return
