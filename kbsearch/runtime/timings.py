"""Where one CLI run spends its time: ``KBSEARCH_TIMINGS=1`` prints phase times to stderr.

A cold ``check`` is mostly imports and the model loads; this names the share of
each without a profiler, so ``bench/cold_start.py`` can break a whole process
down. Phases may nest: each reports its own time without its sub-phases', so
the phases and ``other`` add up to the run's total, which counts from the
process's start (``start``: the interpreter and the CLI's import, read from
/proc where there is one). A phase on another thread (the judge loading beside
USE, ``overlap.py``) overlaps the main thread's: it is reported as ``beside:
NAME``, outside that sum. Recording is always on (a clock read per phase, a
handful per run); only the report is opt-in.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

PREFIX = "kbsearch: timings "

_spent: dict[str, float] = {}
_beside: dict[str, float] = {}
_lock = threading.Lock()
_threads = threading.local()


def _open_children() -> list[float]:
    """For each phase now running on this thread, the time spent so far in the phases inside it."""
    if not hasattr(_threads, "open"):
        _threads.open = []
    return _threads.open


@contextmanager
def phase(name: str) -> Iterator[None]:
    started = time.perf_counter()
    open_ = _open_children()
    open_.append(0.0)
    try:
        yield
    finally:
        elapsed = time.perf_counter() - started
        inner = open_.pop()
        spent = _spent if threading.current_thread() is threading.main_thread() else _beside
        with _lock:
            spent[name] = spent.get(name, 0.0) + elapsed - inner
        if open_:
            open_[-1] += elapsed


def laps(prefix: str) -> Callable[[str, str], None]:
    """A callback for a step-by-step run (``audit``'s ``phase``): each call counts the
    time since the last one (or since this) as phase ``PREFIX: NAME``."""
    last = time.perf_counter()

    def lap(name: str, _note: str) -> None:
        nonlocal last
        now = time.perf_counter()
        record(f"{prefix}: {name}", now - last)
        last = now

    return lap


def record(name: str, seconds: float) -> None:
    """Count ``seconds`` spent before the clock could run (the process's start) as phase ``name``."""
    _spent[name] = _spent.get(name, 0.0) + seconds


def process_age() -> float:
    """Seconds since this process started, from /proc (10 ms steps); 0 where there is no /proc."""
    try:
        with open("/proc/self/stat", encoding="ascii") as handle:
            started = int(handle.read().rsplit(")", 1)[1].split()[19])  # field 22, starttime, in clock ticks
        with open("/proc/uptime", encoding="ascii") as handle:
            uptime = float(handle.read().split()[0])
        return max(0.0, uptime - started / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


def enabled() -> bool:
    from kbsearch.errors import KbError
    from kbsearch.settings import settings

    try:
        return settings().timings
    except KbError:  # the command itself reports a bad variable
        return False


def report(total: float, stream: TextIO | None = None) -> None:
    """One line, ``kbsearch: timings {json}``: seconds per phase, ``other`` and ``total``."""
    if not enabled():
        return
    phases = {name: round(seconds, 4) for name, seconds in _spent.items()}
    phases["other"] = round(max(0.0, total - sum(_spent.values())), 4)
    phases["total"] = round(total, 4)
    phases.update({f"beside: {name}": round(seconds, 4) for name, seconds in _beside.items()})
    print(PREFIX + json.dumps(phases), file=stream or sys.stderr)


def reset() -> None:
    """Forget recorded phases (tests run many commands in one process)."""
    _spent.clear()
    _beside.clear()
    _open_children().clear()
