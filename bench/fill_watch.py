"""Watching the background fill an ingest started: when every judge vector is written, when
the fill ends, and its CPU seconds (a shared piece of ``bench/judge_cost.py``).

The fill is ``python -m kbsearch.kb.token_fill INDEX MODEL`` in a session of its own, not a
child of the bench: it is found by its command line (the index folder is this run's own
temporary one), and its CPU read from /proc every ``STEP`` seconds until it exits (the last
reading is at most a step short). The records lacking a judge vector are counted by the
store's own query (``kbsearch.store.judge_vectors.LACKING``) on a read-only connection.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from kbsearch.store.judge_vectors import LACKING

STEP = 0.1
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class FillTimes:
    judge_done: float = float("nan")
    """Seconds from ``started`` until no record lacked its judge vector."""
    judge_cpu: float = float("nan")
    """The fill's CPU seconds by then."""
    ended: float = float("nan")
    """Seconds from ``started`` until the fill process was gone."""
    cpu: float = 0.0
    """The fill's CPU seconds (every thread), its last reading."""
    found: bool = False


def _fill_pid(index: Path) -> int | None:
    wanted = str(index).encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"kbsearch.kb.token_fill" in argv and wanted in argv:
            return int(entry.name)
    return None


def _cpu(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def _lacking(index: Path, judge: str) -> int:
    db = sqlite3.connect(f"file:{index / 'kb.sqlite'}?mode=ro", uri=True)
    try:
        return len(db.execute(LACKING, (judge,)).fetchall())
    finally:
        db.close()


class FillWatch:
    """Watches the fill of ``index`` on a thread of its own, from ``started`` (perf_counter)."""

    def __init__(self, index: Path, judge: str, started: float, wait_for_start: float = 5.0) -> None:
        self.index, self.judge, self.started, self.wait_for_start = index, judge, started, wait_for_start
        self.times = FillTimes()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def running(self) -> bool:
        return self._thread.is_alive()

    def join(self) -> FillTimes:
        self._thread.join()
        return self.times

    def _watch(self) -> None:
        pid, deadline = None, time.perf_counter() + self.wait_for_start
        while pid is None and time.perf_counter() < deadline:
            pid = _fill_pid(self.index)
            time.sleep(STEP / 2)
        self.times.found = pid is not None
        while True:
            now = time.perf_counter() - self.started
            cpu = _cpu(pid) if pid is not None else None
            if cpu is not None:
                self.times.cpu = cpu
            if self.times.judge_done != self.times.judge_done and _lacking(self.index, self.judge) == 0:
                self.times.judge_done, self.times.judge_cpu = now, self.times.cpu
            if cpu is None:  # gone (or never found): what it left lacking stays so
                self.times.ended = now
                return
            time.sleep(STEP)
