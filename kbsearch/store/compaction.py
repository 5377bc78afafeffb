"""Rebuilding an approximate index without its tombstones, away from the writer.

A deleted or replaced vector stays in the HNSW graph as a tombstone, skipped
by every search, so an edited briefing's re-ingest only appends its new
vectors. When tombstones pass their share (``IndexParams.compact_share``), or
the index has shrunk enough to be exact again, the writer starts
``python -m kbsearch.store.compaction INDEX`` once its cache is saved, and
returns without waiting for it (``background.start``: this module imports the
store's facade, which imports the writer).

The compaction builds a fresh index from the float32 vectors in SQLite
inside one read snapshot, taking no lock meanwhile; then it takes the writer
lock for the write alone and replaces the cache only if no writer committed
since it read. If one did, its work is dropped; that writer's own cache
stands, and it starts another compaction if one is still due.
"""

from __future__ import annotations

import sys
from pathlib import Path

from filelock import FileLock, Timeout

from kbsearch.errors import KbError
from kbsearch.store.facade import Store
from kbsearch.store.manifest import read_manifest
from kbsearch.store.vector_cache import write_cache
from kbsearch.vector_index import IndexParams

COMPACT_LOCK = ".compact.lock"
WRITER_LOCK = ".writer.lock"
"""``kbsearch.kb.writer_lock.LOCK_NAME``, which this layer cannot import; a test keeps them equal."""


def compact(root: Path, params: IndexParams | None = None, *, writer_wait: float = 60.0) -> bool:
    """Rebuild the cache of ``root`` from SQLite; True when the new cache was written."""
    try:
        with FileLock(str(root / COMPACT_LOCK), timeout=0):
            return _compact(root, params, writer_wait)
    except Timeout:
        return False  # another compaction is at it


def _compact(root: Path, params: IndexParams | None, writer_wait: float) -> bool:
    store = Store.open(root, params=params)
    try:
        with store.snapshot():
            generation, model, dim = store.generation, store.model, store.dim
            manifest = read_manifest(root)
            if model is None or dim is None or manifest is None or manifest.generation != generation:
                return False  # no cache for this state: the next writer or reader rebuilds it
            index = store.build_index()
        try:
            with FileLock(str(root / WRITER_LOCK), timeout=writer_wait):
                now = read_manifest(root)
                if store.generation != generation or now is None or now.vectors_sha256 != manifest.vectors_sha256:
                    return False
                write_cache(root, index, model=model, dim=dim, generation=generation)
                return True
        except Timeout:
            return False
    finally:
        store.close()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m kbsearch.store.compaction INDEX", file=sys.stderr)
        return 2
    try:
        return 0 if compact(Path(argv[0])) else 1
    except (KbError, OSError) as err:
        print(f"kbsearch compaction: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
