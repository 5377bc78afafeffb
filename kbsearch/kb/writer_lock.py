"""The writer lock on an index folder: one writer at a time, the others wait.

filelock's lock, with a message while waiting and a clear error when the
wait ($KBSEARCH_LOCK_TIMEOUT seconds) runs out.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock, Timeout

from kbsearch.errors import KbError, WriterBusy
from kbsearch.settings import settings
from kbsearch.store.database import read_only_error, replaced, replaced_error

if TYPE_CHECKING:
    from kbsearch.store import Store

LOCK_NAME = ".writer.lock"


def require_same_index(store: Store | None, root: Path) -> None:
    """Refuse a write whose open store's database is gone from ``root`` (the folder removed, or
    another index put there while a server or the TUI ran): it would go into the removed file."""
    if store is not None and replaced(root, store.identity):
        raise replaced_error(root)


class WriterLock:
    """filelock's lock, with a message while waiting and a clear timeout error."""

    def __init__(self, path: Path, on_wait: Callable[[], None] | None, timeout: float | None = None) -> None:
        self.path = path
        self.on_wait = on_wait
        self.lock = FileLock(str(path))
        self.timeout = settings().lock_timeout if timeout is None else timeout

    def __enter__(self) -> WriterLock:
        try:
            self._acquire()
        except PermissionError as err:  # os.access said yes, the file system says no
            raise read_only_error(self.path.parent) from err
        except OSError as err:
            raise KbError(f"cannot take the writer lock: {err.strerror}", path=str(self.path)) from err
        return self

    def _acquire(self) -> None:
        try:
            self.lock.acquire(timeout=0)
            return
        except Timeout:
            if self.on_wait:
                self.on_wait()
        try:
            self.lock.acquire(timeout=self.timeout)
        except Timeout as err:
            raise WriterBusy(
                f"another kbsearch run has been writing to {self.path.parent} for "
                f"{self.timeout:g}s; nothing was written",
                hint="wait for it, or raise KBSEARCH_LOCK_TIMEOUT",
            ) from err

    def __exit__(self, *exc: object) -> None:
        self.lock.release()


class WaitClock:
    """An ``on_wait`` for ``WriterLock`` that also times the wait, so that a
    report can tell the wait for another writer apart from its own work."""

    def __init__(self, on_wait: Callable[[], None] | None) -> None:
        self.on_wait = on_wait
        self.seconds = 0.0
        """From finding the lock taken to ``stop()``; 0 when it was free."""
        self._began: float | None = None

    def __call__(self) -> None:
        self._began = time.perf_counter()
        if self.on_wait:
            self.on_wait()

    def stop(self) -> None:
        """Call once the lock is held."""
        if self._began is not None:
            self.seconds = time.perf_counter() - self._began
            self._began = None

    def apart(self, elapsed: float) -> tuple[float, float]:
        """(the work, the wait) in ``elapsed`` seconds, rounded to the millisecond."""
        return round(elapsed - self.seconds, 3), round(self.seconds, 3)
