"""The index's newest records built ahead for the server's short checks, a turn at a time.

A short check (an increment, as an agent sends them) runs on the quick-check thread
(``service.QUICK_CHECK_CHARS``), whose knowledge base keeps the records its checks built
(``kb.warm_checks``). At start, that thread builds the newest ``--warm-records`` records
in turns of ``WARM_TURN``, each queued behind the requests waiting then: a check that
arrives meanwhile waits for one turn at most, never for the whole. Warming stops
at the first write (the kept records start afresh), when the queue is full, on a
failure (the checks build what they read, as without it) and when the server stops.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future

from kbsearch.errors import Busy
from kbsearch.kb import KnowledgeBase
from kbsearch.kb.warm_checks import records_to_warm, warm_checks
from kbsearch.serve.pool import KbPool

WARM_TURN = 100
"""Records built in one turn: about 0.2 CPU s on the 10k bench index."""

_LOG = logging.getLogger("kbsearch.serve")


class Warming:
    """Builds ``count`` records ahead on ``pool``'s thread; ``done`` is set once it has stopped."""

    def __init__(self, pool: KbPool, count: int, stopping: Callable[[], bool]) -> None:
        self._pool, self._count, self._stopping = pool, count, stopping
        self.done = threading.Event()
        self.built = 0
        self._left: list[int] = []
        self._generation = -1
        self._began = time.perf_counter()
        if count > 0:
            self._submit(self._plan)
        else:
            self.done.set()

    def _plan(self, kb: KnowledgeBase) -> bool:
        self._generation, self._left = records_to_warm(kb, self._count)
        return True

    def _turn(self, kb: KnowledgeBase) -> bool:
        turn, self._left = self._left[:WARM_TURN], self._left[WARM_TURN:]
        if not warm_checks(kb, turn, self._count, self._generation):
            return False  # the index changed: its checks start afresh
        self.built += len(turn)
        return True

    def _submit(self, job: Callable[[KnowledgeBase], bool]) -> None:
        try:
            self._pool.submit(job).add_done_callback(self._next)
        except Busy:  # checks are waiting: they go first, and build what they read
            self._stop()

    def _next(self, turn: Future[bool]) -> None:
        error = None if turn.cancelled() else turn.exception()
        if error is not None:
            _LOG.warning("building records ahead for checks stopped: %s", error)
        if turn.cancelled() or error is not None or not turn.result():
            self._stop()
        elif self._left and not self._stopping():
            self._submit(self._turn)
        else:
            self._stop()

    def _stop(self) -> None:
        _LOG.info("%d records built ahead for checks in %.1f s", self.built, time.perf_counter() - self._began)
        self.done.set()
