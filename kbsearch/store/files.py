"""The files of an index folder, for the rare run that must take them away."""

from __future__ import annotations

from pathlib import Path

from kbsearch.store.database import DB_NAME
from kbsearch.store.vector_cache import MANIFEST_NAME, VECTORS_NAME

INDEX_FILES = (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", MANIFEST_NAME, VECTORS_NAME)
"""The database, its WAL side files, and the vector cache."""


def remove_index_files(root: Path) -> None:
    for name in INDEX_FILES:
        (root / name).unlink(missing_ok=True)


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
