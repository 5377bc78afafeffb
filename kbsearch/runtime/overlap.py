"""Two loads at once. A cold check loads USE and its e5 judge; both spend their
time in C++ (sentencepiece reading its pieces, onnxruntime building a session,
numpy reading weights) with the GIL released, so on two cores the judge loads
on a thread while USE loads here."""

from __future__ import annotations

import contextvars
import importlib
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Generic, TypeVar

import kbsearch.runtime.timings as timings

Here = TypeVar("Here")
Beside = TypeVar("Beside")
T = TypeVar("T")


def side_by_side(
    here: Callable[[], Here], beside: Callable[[], Beside], waiting: str, imports: Sequence[str] = ()
) -> tuple[Here, Beside]:
    """``here()`` on this thread while ``beside()`` runs on another; an error of
    either is raised here. The time spent waiting for ``beside`` is phase ``waiting``.
    The modules ``imports`` names, which ``beside`` would import, are imported here
    first: ``python -X importtime`` keeps one tally for all threads, which two
    threads importing at once corrupt (negative self times)."""
    import_first(imports)
    with Pipeline() as pipeline:
        second = pipeline.start(beside, waiting)
        first = here()
        return first, second.result()


def import_first(modules: Sequence[str]) -> None:
    """Import ``modules`` on this thread, before a thread that would import them starts:
    ``python -X importtime`` keeps one tally for all threads, which two threads
    importing at once corrupt (negative self times)."""
    with timings.phase("model import"):
        for module in modules:
            importlib.import_module(module)


class Pending(Generic[T]):
    """One piece of work started beside; ``result`` waits for it (timed as phase ``waiting``)."""

    def __init__(self, future: Future[T], waiting: str) -> None:
        self._future, self._waiting = future, waiting

    def result(self) -> T:
        with timings.phase(self._waiting):
            return self._future.result()


class Pipeline:
    """Work run piece after piece on one thread beside this one, each piece's result
    waited for only where it is read: a check's claim token vectors run on through
    the search and the comparisons, which never read them.

    Each piece runs in the context of the thread that started it, so a server
    request's cancellation holds there. Leaving the block drops the pieces not yet
    begun; when it is left by an error, ``stopping`` tells the running one to end
    at its next step instead of finishing work nobody will read."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kbsearch-beside")  # one: pieces in order
        self._stopping = threading.Event()

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if kind is not None:
            self._stopping.set()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def start(self, work: Callable[[], T], waiting: str) -> Pending[T]:
        return Pending(self._pool.submit(contextvars.copy_context().run, work), waiting)

    def stopping(self) -> bool:
        return self._stopping.is_set()
