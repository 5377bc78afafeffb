"""Two loads at once. A cold check loads USE and its e5 judge; both spend their
time in C++ (sentencepiece reading its pieces, onnxruntime building a session,
numpy reading weights) with the GIL released, so on two cores the judge loads
on a thread while USE loads here."""

from __future__ import annotations

import contextvars
import functools
import importlib
import threading
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Future, wait
from queue import SimpleQueue
from types import TracebackType
from typing import Any, Generic, TypeVar

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


Job = tuple[Future[Any], Callable[[], Any]]


def _run_jobs(jobs: SimpleQueue[Job | None]) -> None:
    """A worker's thread: each job in turn, until the worker is closed or dropped."""
    while (job := jobs.get()) is not None:
        future, work = job
        del job
        if future.set_running_or_notify_cancel():  # else cancelled before it began
            try:
                result = work()
            except BaseException as error:  # the future hands it to the thread waiting for it
                future.set_exception(error)
            else:
                future.set_result(result)
        del future, work  # nothing held while idle


class _Worker:
    """One thread running jobs in order. Its thread holds only the queue, so when the
    worker is dropped (the thread that kept it ended) its thread ends too."""

    def __init__(self) -> None:
        self._jobs: SimpleQueue[Job | None] = SimpleQueue()
        threading.Thread(target=_run_jobs, args=(self._jobs,), name="kbsearch-beside", daemon=True).start()
        weakref.finalize(self, self._jobs.put, None)

    def submit(self, work: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        self._jobs.put((future, work))
        return future

    def close(self) -> None:
        self._jobs.put(None)


_KEPT = threading.local()
"""Each thread's idle worker, for its next pipeline. A warm process's every check
started and joined a thread of its own (two, with the models' ``side_by_side``): on
a busy machine the start alone waited milliseconds for a core."""


class Pipeline:
    """Work run piece after piece on one thread beside this one, each piece's result
    waited for only where it is read: a check's claim token vectors run on through
    the search and the comparisons, which never read them.

    Each piece runs in the context of the thread that started it, so a server
    request's cancellation holds there. Leaving the block drops the pieces not yet
    begun; when it is left by an error, ``stopping`` tells the running one to end
    at its next step instead of finishing work nobody will read."""

    def __init__(self) -> None:
        # One thread: pieces in order. This thread's idle one when there is one; a pipeline
        # opened inside another gets its own, so its pieces never queue behind the outer's.
        self._worker: _Worker = getattr(_KEPT, "worker", None) or _Worker()
        _KEPT.worker = None
        self._started: list[Future[Any]] = []
        self._stopping = threading.Event()

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if kind is not None:
            self._stopping.set()
        for future in self._started:  # the pieces not yet begun are dropped, the running one ends
            future.cancel()
        wait(self._started)
        if getattr(_KEPT, "worker", None) is None:
            _KEPT.worker = self._worker
        else:
            self._worker.close()

    def start(self, work: Callable[[], T], waiting: str) -> Pending[T]:
        future = self._worker.submit(functools.partial(contextvars.copy_context().run, work))
        self._started.append(future)
        return Pending(future, waiting)

    def stopping(self) -> bool:
        return self._stopping.is_set()
