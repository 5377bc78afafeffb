"""The index's newest records built ahead for the server's short checks, a turn at a time.

A short check (an increment, as an agent sends them) runs on the quick-check thread
(``service.QUICK_CHECK_CHARS``), whose knowledge base keeps the records its checks built
(``kb.warm_checks``). At start, that thread builds the newest ``--warm-records`` records
in turns of ``WARM_TURN``, each queued behind the requests waiting then: a check that
arrives meanwhile waits for one turn at most, never for the whole.

The records kept stay across writes while their rows stay as they were
(``dedupe.kept_records``). Every ``WATCH_SECONDS`` a look at the index's generation, queued
the same way, finds a write (an accept, an ingest by another process): the newest records
not kept yet, those it added first, are then built in turn. A full queue puts the building
off to the next look (the checks waiting go first, and build what they read); a failure
stops it for good (the checks build what they read, as without it), as does the server's stop.
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
WATCH_SECONDS = 1.0
"""How often an idle warming looks for a write: one read of the generation, some microseconds."""

_LOG = logging.getLogger("kbsearch.serve")


class Warming:
    """Builds the newest ``count`` records ahead on ``pool``'s thread, and again after each
    write; ``done`` is set while nothing is left to build (or it has stopped for good)."""

    def __init__(self, pool: KbPool, count: int, stopping: Callable[[], bool]) -> None:
        self._pool, self._count, self._stopping = pool, count, stopping
        self.done = threading.Event()
        self.built = 0
        self._left: list[int] = []
        self._generation = -1
        self._began = time.perf_counter()
        self._told = False
        self._closed = threading.Event()
        self._queued = threading.Lock()  # held while a job of this warming is queued or running
        if count <= 0:
            self.done.set()
            return
        self._submit(self._plan)
        threading.Thread(target=self._watch, name="kbsearch-warming", daemon=True).start()

    def close(self) -> None:
        """No more looks: the server is closing."""
        self._closed.set()

    def _plan(self, kb: KnowledgeBase) -> None:
        self._generation, self._left = records_to_warm(kb, self._count)

    def _turn(self, kb: KnowledgeBase) -> None:
        turn = self._left[:WARM_TURN]
        if not warm_checks(kb, turn, self._count, self._generation):
            self._plan(kb)  # a write: what it added first
            return
        self._left = self._left[WARM_TURN:]
        self.built += len(turn)

    def _look(self, kb: KnowledgeBase) -> None:
        """A write since the last plan plans again; else the turns go on where a full queue left them."""
        if kb.store.generation != self._generation:
            self._plan(kb)

    def _watch(self) -> None:
        while not self._closed.wait(WATCH_SECONDS) and not self._stopping():
            self._submit(self._look)  # unless a turn or a look is queued already

    def _submit(self, job: Callable[[KnowledgeBase], None]) -> None:
        if not self._queued.acquire(blocking=False):
            return  # one of ours is queued already
        try:
            self._pool.submit(job).add_done_callback(self._next)
        except Busy:  # checks are waiting: they go first, and build what they read; the next look goes on
            self._queued.release()
            self.done.set()

    def _next(self, turn: Future[None]) -> None:
        self._queued.release()
        error = None if turn.cancelled() else turn.exception()
        if error is not None:
            _LOG.warning("building records ahead for checks stopped: %s", error)
        if turn.cancelled() or error is not None or self._stopping():
            self._closed.set()  # for good
            self._tell()
            self.done.set()
        elif self._left:
            self.done.clear()
            self._submit(self._turn)
        else:  # all built: until the next write
            self._tell()
            self.done.set()

    def _tell(self) -> None:
        """The first building, once: a write's few records are not worth a line each."""
        if not self._told:
            self._told = True
            _LOG.info("%d records built ahead for checks in %.1f s", self.built, time.perf_counter() - self._began)
