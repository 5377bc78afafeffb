"""A consistent copy of an index folder, taken while others read it (``kbsearch backup``).

``cp -r`` of a live index can copy ``kb.sqlite`` without the writes still in its WAL, or in the
middle of a checkpoint. SQLite's online backup API copies the database as one committed state;
the vector cache (``manifest.json``, ``vectors.faiss``) is copied beside it by the caller
holding the index's writer lock, so no write changes either meanwhile. A cache that still
disagrees with the copied database (stamped with another generation) is rebuilt from it on the
copy's first open, embedding nothing: the database alone is the index.

The database is copied as it is, never migrated: a backup taken before an upgrade still opens
with the kbsearch that wrote it.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from kbsearch.errors import KbError
from kbsearch.store.database import DB_NAME, connect, writable
from kbsearch.store.manifest import MANIFEST_NAME
from kbsearch.store.vector_cache import VECTORS_NAME


def require_empty_destination(dest: Path) -> None:
    """Refuse a ``dest`` that is a file or a folder with anything in it: a backup never overwrites."""
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise KbError(
            "the backup destination already exists and is not an empty folder; nothing was copied",
            path=str(dest),
            hint="name a new folder; kbsearch backup creates it",
        )


def copy_index(root: Path, dest: Path) -> tuple[int, list[str]]:
    """Copy ``root``'s database and vector cache into ``dest`` (created): (records, files copied).
    The caller holds the writer lock, or the folder is read-only (no write can happen)."""
    require_empty_destination(dest)
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise KbError(
            f"cannot create the backup folder: {err.strerror}", path=str(dest), hint="choose a folder you can write"
        ) from err
    source = connect(root, read_only=not writable(root))
    try:
        target = sqlite3.connect(dest / DB_NAME)
        try:
            source.backup(target)  # one committed state, pages copied while readers go on
            records = int(target.execute("SELECT count(*) FROM records").fetchone()[0])
        finally:
            target.close()
    except sqlite3.DatabaseError as err:
        raise KbError(
            f"could not copy the index database: {err}",
            path=str(root / DB_NAME),
            hint="run 'kbsearch doctor' on the index; for a full disk at the destination, free space there",
        ) from err
    finally:
        source.close()
    copied = [DB_NAME]
    for name in (MANIFEST_NAME, VECTORS_NAME):
        if (root / name).exists():
            try:
                shutil.copy2(root / name, dest / name)
            except OSError as err:
                raise KbError(
                    f"could not copy {name}: {err.strerror}; the backup's {DB_NAME} is whole",
                    path=str(dest),
                    hint="the copy rebuilds its vector cache from the database when opened ('kbsearch reindex')",
                ) from err
            copied.append(name)
    return records, copied
