"""How many cores a bulk job should use: the ones not busy with other processes."""

from __future__ import annotations

import os


def all_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0))


def free_cores() -> int:
    """Cores not busy with other processes, by the last minute's load average:
    at least one, at most ``all_cores()``. Threads beyond the free cores only
    wait on each other, which costs far more than they gain (docs/performance.md)."""
    cores = all_cores()
    try:
        busy = os.getloadavg()[0]
    except OSError:
        return cores
    return max(1, min(cores, round(cores - busy)))
