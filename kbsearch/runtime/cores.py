"""How many cores a bulk job should use: the ones not busy with other processes."""

from __future__ import annotations

import os
import time

_STARTED = time.monotonic()
"""When this process imported kbsearch: its own share of the load is read from here on."""


def all_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0))


def own_load() -> float:
    """The cores this process kept busy on average since kbsearch was imported:
    an estimate of its own part of the load average, which counts every
    runnable thread, this process's included. (The load average weighs the
    last minute; a lifetime mean is the cheap stand-in, close for a process
    that has been busy throughout, as a bulk job is.)"""
    times = os.times()
    wall = time.monotonic() - _STARTED
    if wall < 1.0:
        return 0.0
    return (times.user + times.system) / wall


def free_cores() -> int:
    """Cores not busy with *other* processes, by the last minute's load average
    less this process's own share: at least one, at most ``all_cores()``.
    Threads beyond the free cores only wait on each other, which costs far more
    than they gain (docs/performance.md). Without the own share, a process that
    has kept one of two cores busy (the audit, before its neighbour search)
    would always see one free core and leave the other idle."""
    cores = all_cores()
    try:
        busy = os.getloadavg()[0]
    except OSError:
        return cores
    others = max(0.0, busy - min(own_load(), cores))
    return max(1, min(cores, round(cores - others)))
