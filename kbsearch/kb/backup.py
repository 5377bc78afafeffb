"""``kbsearch backup DEST``: a consistent copy of an index, taken while it is in use.

The copy is made under the index's writer lock (a write under way is waited for, saying so, and
the next one waits for the copy), so the database and the vector cache copied agree; readers and
a running server go on meanwhile. A read-only folder takes no lock: nothing can write it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from kbsearch.errors import KbError
from kbsearch.kb.model_choice import index_dir
from kbsearch.kb.writer_lock import LOCK_NAME, WriterLock
from kbsearch.store.backup import copy_index, require_empty_destination
from kbsearch.store.database import DB_NAME, writable
from kbsearch.store.files import unusable_files


class BackupReport(BaseModel):
    index: str
    destination: str
    records: int
    files: list[str]


def backup(
    index: str | os.PathLike[str] | None, dest: str | os.PathLike[str], on_wait: Callable[[], None] | None = None
) -> BackupReport:
    root, target = index_dir(index), Path(dest)
    if not (root / DB_NAME).exists():
        raise KbError(f"no index at {root}", hint="point --index / KBSEARCH_INDEX at the index to back up")
    problem = unusable_files(root, create=False)
    if problem is not None:
        raise problem
    if target.resolve() == root.resolve() or root.resolve() in target.resolve().parents:
        raise KbError(
            "the backup destination is inside the index folder; nothing was copied",
            path=str(target),
            hint="name a folder outside the index",
        )
    require_empty_destination(target)  # before waiting for a writer
    if writable(root):
        with WriterLock(root / LOCK_NAME, on_wait):
            records, files = copy_index(root, target)
    else:
        records, files = copy_index(root, target)
    return BackupReport(index=str(root), destination=str(target), records=records, files=files)
