"""Stopping a request's work part-way: its time budget, or its caller gone.

A thread cannot be killed from outside, so long work stops itself: the
server runs each request's job under a ``Cancellation`` (``watching``), and
the long loops call ``checkpoint()`` between steps (each item and claim of a
check, each turn at the model), which raises ``Stopped`` once the budget is
spent or the caller has gone. Outside a request (the CLI, the TUI) there is
no cancellation and a checkpoint costs one context-variable lookup.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from kbsearch.errors import Stopped

_current: ContextVar[Cancellation | None] = ContextVar("kbsearch_cancellation", default=None)


class Cancellation:
    """One request's budget (seconds from now, None: no limit) and whether it
    was given up, by any thread."""

    def __init__(self, budget: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.budget = budget
        self._clock = clock
        self._deadline = None if budget is None else clock() + budget
        self._reason: str | None = None
        self._retry: tuple[str, float] | None = None
        self._given_up = threading.Event()

    def cancel(self, reason: str, *, retry: tuple[str, float] | None = None) -> None:
        """Stop the work at its next checkpoint (the first reason given is kept).
        ``retry``: what to do next and in how many seconds, when the same work
        may then succeed (the server stopping, not the work's own fault)."""
        if not self._given_up.is_set():
            self._reason, self._retry = reason, retry
            self._given_up.set()

    def check(self) -> None:
        """``Stopped`` if the work should stop now."""
        if self._given_up.is_set():
            hint, seconds = self._retry or (None, None)
            raise Stopped(f"stopped: {self._reason}; nothing was written", hint=hint, retry_after=seconds)
        if self._deadline is not None and self._clock() > self._deadline:
            raise Stopped(
                f"the request ran over its time budget of {self.budget:g} s and was stopped; nothing was written",
                hint="split the input into smaller ones, or check it locally with 'kbsearch check FILE --bulk'",
            )


@contextmanager
def watching(cancellation: Cancellation) -> Iterator[None]:
    """Run the block (in this thread) under ``cancellation``: its checkpoints obey it."""
    token = _current.set(cancellation)
    try:
        yield
    finally:
        _current.reset(token)


def checkpoint() -> None:
    """Raise ``Stopped`` if the work running in this thread should stop."""
    cancellation = _current.get()
    if cancellation is not None:
        cancellation.check()
