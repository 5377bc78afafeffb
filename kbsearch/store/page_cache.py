"""Asking the OS to read an index's database ahead, for a process that stays.

A search reads a few hundred pages scattered over the database file: each
record's float32 vectors and its text. At a million records the file is
6.6 GB, and a page the OS does not hold costs a disk read: hybrid search
took 39-42 ms p50 in a fresh process, against 17-19 ms with the file read
ahead (``bench/read_ahead.py``; docs/performance.md, section 3).
Without it a fresh server would reach the second only after thousands of searches had
touched most of the file. ``read_ahead`` asks the kernel to read the whole
file in the background at start instead (6.6 GB in 3.8 s here, 1.5 s of
CPU: the kernel reads into its cache, nothing is copied to this process),
when it fits in half the memory the OS says is available; the kernel drops
those pages again first when memory runs short.

Only long-lived processes ask (``kbsearch serve``, the TUI): a one-shot
command would read gigabytes to answer one query.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

LOG = logging.getLogger("kbsearch.store")
# The share of available memory a database may take to be read ahead.
AVAILABLE_SHARE = 0.5
# The kernel takes a few MB of read-ahead advice at a time and drops the rest
# of a larger range (one advice for a whole 6.2 GB file read 8 MB of it); a
# one-byte read now and then waits for the queued reads, so they never pile up.
ADVICE_BYTES = 4 << 20
PACE_BYTES = 64 << 20
# The read ahead under way per file: the TUI asks again on every reload, and
# a second pass over a file the first is still reading would only compete with it.
_RUNNING: dict[Path, threading.Thread] = {}
_RUNNING_GUARD = threading.Lock()
# Closing any descriptor of a file drops every POSIX lock this process holds on
# it, SQLite's among them. Another process closing its connection would then find
# the database unused, checkpoint it and delete the WAL under this process's open
# connections: "disk I/O error" on the next read, and writes since then lost. So
# the descriptor the advice goes through is never closed: one per file, reused.
_HELD: dict[tuple[int, int], int] = {}


def available_memory() -> int | None:
    """Bytes the OS says it can give without swapping (Linux's MemAvailable), or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def read_ahead_plan(path: Path) -> str | None:
    """Why ``path`` is not to be read ahead, or None when it is."""
    if not hasattr(os, "posix_fadvise"):
        return "this OS takes no read-ahead advice"
    try:
        size = path.stat().st_size
    except OSError as err:
        return f"cannot read {path.name}: {err.strerror}"
    available = available_memory()
    if available is None:
        return "the memory available is unknown"
    if size > AVAILABLE_SHARE * available:
        return f"{path.name} ({size / 1e9:.1f} GB) is over half the memory available ({available / 1e9:.1f} GB)"
    return None


def read_ahead(path: Path) -> threading.Thread | None:
    """Start reading ``path`` into the OS's page cache on a daemon thread (the
    advice can block while the kernel queues gigabytes of reads), or return
    the one still reading it; None, with the reason logged, when it is not
    to be read ahead."""
    reason = read_ahead_plan(path)
    if reason is not None:
        LOG.info("not reading %s ahead: %s", path, reason)
        return None
    key = path.resolve()
    with _RUNNING_GUARD:
        running = _RUNNING.get(key)
        if running is not None and running.is_alive():
            return running
        LOG.info("reading %s into the OS's cache, in the background", path)
        thread = _RUNNING[key] = threading.Thread(target=_advise, args=(path,), name="kbsearch-read-ahead", daemon=True)
        thread.start()
    return thread


def _advise(path: Path) -> None:
    try:
        fd = _held_descriptor(path)
    except OSError as err:
        LOG.info("not reading %s ahead: %s", path, err.strerror)
        return
    try:
        size = os.fstat(fd).st_size
        for start in range(0, size, ADVICE_BYTES):
            os.posix_fadvise(fd, start, ADVICE_BYTES, os.POSIX_FADV_WILLNEED)
            end = min(start + ADVICE_BYTES, size)
            if end % PACE_BYTES == 0:
                os.pread(fd, 1, end - 1)
    except OSError as err:  # advice only: the searches read what they need anyway
        LOG.info("reading %s ahead stopped: %s", path, err.strerror)


def _held_descriptor(path: Path) -> int:
    """A read-only descriptor of ``path`` that stays open, one per file (see ``_HELD``)."""
    with _RUNNING_GUARD:
        stat = path.stat()
        key = (stat.st_dev, stat.st_ino)
        if key not in _HELD:
            _HELD[key] = os.open(path, os.O_RDONLY)
        return _HELD[key]
