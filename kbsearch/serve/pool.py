"""Threads that each own one ``KnowledgeBase``.

A SQLite connection belongs to the thread that opened it, so a server cannot
hand one knowledge base to whichever thread asks. Each worker thread opens
its own at start (and loads its vector index, so the first request is warm)
and runs the jobs it takes from a shared queue: a job goes to whichever
thread is free. The opener gives them one model and one vector index per
generation (``SharedEncoder``, ``IndexShare``).

Each job runs under its request's ``Cancellation``: a job whose request was
given up or ran out of time while it waited is not started, and a running
one stops at its next checkpoint. A pool may bound how many jobs wait: one
more is refused at once (``Busy``) rather than queued behind them; and its
threads may run at a lower priority (``nice``), so that on busy cores the
readers' threads are scheduled first.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from kbsearch.errors import Busy
from kbsearch.kb import KnowledgeBase
from kbsearch.runtime.cancel import Cancellation, watching

T = TypeVar("T")
_Job = tuple[Future[Any], Callable[[KnowledgeBase], Any], Cancellation]


class KbPool:
    """``size`` threads named for the ``kind`` of job they run (read, check,
    write), each with its own knowledge base from ``opener``; at most
    ``max_waiting`` jobs wait for them (None: any number)."""

    def __init__(
        self,
        opener: Callable[[], KnowledgeBase],
        size: int,
        kind: str,
        max_waiting: int | None = None,
        nice: int = 0,
    ) -> None:
        self._opener = opener
        self.kind = kind
        self.nice = nice
        self.max_waiting = max_waiting
        self._waiting = 0
        self._count = threading.Lock()
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._work, name=f"kbsearch-{kind}-{n}", daemon=True) for n in range(max(1, size))
        ]
        self._ready = threading.Barrier(len(self._threads) + 1)
        for thread in self._threads:
            thread.start()

    def wait_ready(self, timeout: float | None = None) -> None:
        """Until every thread has opened its knowledge base (or failed to)."""
        self._ready.wait(timeout)

    def submit(self, job: Callable[[KnowledgeBase], T], cancellation: Cancellation | None = None) -> Future[T]:
        """Queue ``job``; ``Busy`` when ``max_waiting`` jobs are waiting already."""
        with self._count:
            if self.max_waiting is not None and self._waiting >= self.max_waiting:
                raise Busy(f"the server is busy: {self.kind} requests waiting: {self._waiting}; nothing was done")
            self._waiting += 1
        future: Future[T] = Future()
        self._jobs.put((future, job, cancellation or Cancellation()))
        return future

    def close(self, timeout: float = 10.0) -> None:
        """Finish the queued jobs, then close every knowledge base."""
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join(timeout)

    def _work(self) -> None:
        if self.nice:
            _lower_priority(self.nice)
        kb: KnowledgeBase | None = None
        try:
            kb = self._open()
        except Exception:  # each job tries again and reports why: the server keeps running
            kb = None
        self._ready.wait()
        while (item := self._jobs.get()) is not None:
            future, job, cancellation = item
            with self._count:
                self._waiting -= 1
            if not future.set_running_or_notify_cancel():
                continue
            try:
                cancellation.check()  # given up or out of time while it waited: not started
                kb = kb or self._open()
                with watching(cancellation):
                    future.set_result(job(kb))
            except BaseException as err:
                future.set_exception(err)
        if kb is not None:
            kb.close()

    def _open(self) -> KnowledgeBase:
        kb = self._opener()
        try:
            _ = kb.store.vector_index
        except BaseException:
            kb.close()
            raise
        return kb


def _lower_priority(nice: int) -> None:
    """This thread's nice value: Linux schedules each thread on its own. Elsewhere
    the id is not a thread's, and every thread keeps the process's priority. Never
    raised: a server started niced further (by root, who may raise it) keeps its
    checks below its readers."""
    thread = threading.get_native_id()
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, thread, max(nice, os.getpriority(os.PRIO_PROCESS, thread)))
