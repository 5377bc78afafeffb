"""The knowledge base lives on a thread of its own.

A SQLite connection refuses to be used from any thread but the one that
opened it, and Textual starts a fresh thread for every thread worker. So each
facade call is handed to a single-thread executor that opened the knowledge
base and owns it: workers block on the answer, the UI thread never does.

The app runs two such gateways: one for searches, one for checks and audits,
so that a search never queues behind an audit of the whole index.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from kbsearch.kb import KnowledgeBase

T = TypeVar("T")


class Superseded(Exception):
    """The caller stopped wanting this call before it started (a newer query replaced it)."""


def _always() -> bool:
    return True


class KbGateway:
    """Runs ``job(kb)`` on the knowledge base's own thread, opening it on first use."""

    def __init__(self, opener: Callable[[], KnowledgeBase], label: str) -> None:
        self._opener = opener
        self.label = label
        """How the index is named in the status bar (the path as the user gave it)."""
        self._kb: KnowledgeBase | None = None
        self._closing = False
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kbsearch-kb")

    def call(self, job: Callable[[KnowledgeBase], T], wanted: Callable[[], bool] = _always) -> T:
        """Blocks the calling (worker) thread until ``job`` has run; raises what it raises."""
        return self._pool.submit(self._run, job, wanted).result()

    def _run(self, job: Callable[[KnowledgeBase], T], wanted: Callable[[], bool]) -> T:
        # Calls queue up behind a slow one (a check); those whose caller has
        # moved on are skipped rather than run for nobody.
        if self._closing or not wanted():
            raise Superseded
        if self._kb is None:
            self._kb = self._opener()
        return job(self._kb)

    def reset(self) -> None:
        """Reopen the knowledge base on the next call, to see what other connections wrote
        (the vector cache is loaded once per connection)."""
        if not self._closing:
            self._pool.submit(self._close)

    def close(self) -> None:
        """Skip queued calls and close the knowledge base after the running one.

        Quitting does not wait: a check that is still running finishes (its
        writes are transactions either way) and the process exits after it.
        """
        if self._closing:
            return
        self._closing = True
        self._pool.submit(self._close)
        self._pool.shutdown(wait=False)

    def _close(self) -> None:
        if self._kb is not None:
            self._kb.close()
            self._kb = None
