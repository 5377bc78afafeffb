"""``kbsearch serve --http --workers N``: N processes answering on one socket.

One process answers at most about 95 searches a second on any number of
cores: most of a search is Python holding the interpreter lock
(docs/serve.md). With N workers each process has its own lock, model and
index share; they accept from the one listening socket the parent bound, so
an idle worker takes the next connection. They coordinate as separate CLI
processes already do: every write takes the index's writer lock, and every
read compares the database's generation with its index, so an accept made
by one worker is seen by the others' next request.

The parent loads no model: it binds the socket, forks the workers before
anything starts a thread (a fork copies only the calling thread, so a model
runtime's thread pools must be made in the child), waits until each has its
models loaded, writes the server entry and then only supervises: a worker
that dies is replaced, SIGTERM or Ctrl-C stops them all, and a worker whose
parent is gone stops itself.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from kbsearch.errors import KbError

log = logging.getLogger("kbsearch.serve")

POLL_SECONDS = 0.2
"""How often the parent looks at its workers and its stop request."""
RESTARTS_PER_MINUTE = 5
"""More replacements than this within a minute: the workers fail at start, stop."""
STOP_SECONDS = 30.0
"""How long the parent waits for its workers after asking them to stop, before SIGKILL."""


@dataclass
class Worker:
    pid: int
    ready: int | None
    """The read end of the pipe the worker writes one byte to once it can answer; None once read."""


@dataclass
class Supervisor:
    """Starts ``count`` workers, each running ``run`` in a forked child (its exit
    code is the child's), and keeps them running until asked to stop."""

    count: int
    run: Callable[[WorkerLink], int]
    stop_requested: Callable[[], bool]
    workers: dict[int, Worker] = field(default_factory=dict)
    restarts: list[float] = field(default_factory=list)

    def start(self) -> int:
        """Start every worker and wait until each can answer; 0, or the exit
        code of a worker that ended before it could (1 for a signal or a clean
        exit; its own message said why)."""
        for _ in range(self.count):
            self._fork()
        while any(w.ready is not None for w in self.workers.values()):
            if self.stop_requested():
                return 0
            self._read_ready()
            ended = self._reap()
            if ended is not None:
                log.error("worker %d ended before it could answer (%s)", ended[0], describe(ended[1]))
                return ended[1] or 1
        return 0

    def supervise(self) -> int:
        """Until a stop is asked for: replace a worker that ends; 1 when they keep ending."""
        while not self.stop_requested():
            self._read_ready()
            ended = self._reap()
            if ended is None:
                continue
            pid, code = ended
            if self.stop_requested():
                break  # it ended because the stop reached it first (Ctrl-C reaches every process)
            log.warning("worker %d ended (%s); starting another", pid, describe(code))
            now = time.monotonic()
            self.restarts = [t for t in self.restarts if now - t < 60] + [now]
            if len(self.restarts) > RESTARTS_PER_MINUTE:
                log.error("workers ended %d times within a minute: stopping", len(self.restarts))
                return 1
            self._fork()
        return 0

    def stop(self) -> None:
        """SIGTERM to every worker, then wait for them (SIGKILL past ``STOP_SECONDS``)."""
        for pid in self.workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        while self.workers and time.monotonic() < deadline:
            if self._reap() is None:
                time.sleep(0.05)
        for pid in list(self.workers):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            self._forget(pid)

    def _fork(self) -> None:
        read_end, write_end = os.pipe()
        parent = os.getpid()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            os._exit(_child(self.run, write_end, parent))
        os.close(write_end)
        self.workers[pid] = Worker(pid, read_end)

    def _read_ready(self) -> None:
        """Mark the workers that said they can answer (waits at most ``POLL_SECONDS``)."""
        waiting = {w.ready: w for w in self.workers.values() if w.ready is not None}
        if not waiting:
            time.sleep(POLL_SECONDS)
            return
        readable, _, _ = select.select(list(waiting), [], [], POLL_SECONDS)
        for fd in readable:
            worker = waiting[fd]
            if os.read(fd, 1):
                os.close(fd)
                worker.ready = None
            # End of file without the byte: the worker ended, and _reap says how.

    def _reap(self) -> tuple[int, int | None] | None:
        """(pid, exit code or None for a signal) of one worker that ended, if any."""
        if not self.workers:
            return None
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0 or pid not in self.workers:
            return None
        self._forget(pid)
        return pid, os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else None

    def _forget(self, pid: int) -> None:
        worker = self.workers.pop(pid)
        if worker.ready is not None:
            os.close(worker.ready)


def describe(code: int | None) -> str:
    return "killed by a signal" if code is None else f"exit code {code}"


def _child(run: Callable[[WorkerLink], int], ready: int, parent: int) -> int:
    """A worker's whole life; its exit code. Never returns into the parent's code."""
    try:
        # Ctrl-C reaches the whole process group: the parent stops the workers itself.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return run(WorkerLink(ready, parent))
    except KbError as err:
        log.error("worker %d: %s%s", os.getpid(), err, f" ({err.hint})" if err.hint else "")
        return 2
    except BaseException:  # the parent must never go on in a child
        logging.getLogger("kbsearch.serve").exception("worker %d failed", os.getpid())
        return 1
    finally:
        logging.shutdown()
        sys.stderr.flush()


@dataclass
class WorkerLink:
    """What a worker holds of its parent: the pipe it says it is ready on, and the parent's pid."""

    ready: int | None
    parent: int

    def say_ready(self) -> None:
        """Tell the parent this worker can answer."""
        if self.ready is not None:
            os.write(self.ready, b"1")
            os.close(self.ready)
            self.ready = None

    def watch_parent(self, stop: Callable[[], None]) -> None:
        """Call ``stop`` once the parent is gone (it would neither replace nor stop this worker)."""

        def watch() -> None:
            while os.getppid() == self.parent:
                time.sleep(1.0)
            log.warning("worker %d: the parent server is gone; stopping", os.getpid())
            stop()

        threading.Thread(target=watch, name="parent-watch", daemon=True).start()
