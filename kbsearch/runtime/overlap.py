"""Two loads at once. A cold check loads USE and its e5 judge; both spend their
time in C++ (sentencepiece reading its pieces, onnxruntime building a session,
numpy reading weights) with the GIL released, so on two cores the judge loads
on a thread while USE loads here."""

from __future__ import annotations

import contextvars
import importlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import kbsearch.runtime.timings as timings

Here = TypeVar("Here")
Beside = TypeVar("Beside")


def side_by_side(
    here: Callable[[], Here], beside: Callable[[], Beside], waiting: str, imports: Sequence[str] = ()
) -> tuple[Here, Beside]:
    """``here()`` on this thread while ``beside()`` runs on another; an error of
    either is raised here. The time spent waiting for ``beside`` is phase ``waiting``.
    The modules ``imports`` names, which ``beside`` would import, are imported here
    first: ``python -X importtime`` keeps one tally for all threads, which two
    threads importing at once corrupt (negative self times)."""
    import_first(imports)
    # In this thread's context: a request's cancellation (``cancel.checkpoint``) holds there too.
    context = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="kbsearch-load") as pool:
        future = pool.submit(context.run, beside)
        first = here()
        with timings.phase(waiting):
            second = future.result()
    return first, second


def import_first(modules: Sequence[str]) -> None:
    """Import ``modules`` on this thread, before a thread that would import them starts:
    ``python -X importtime`` keeps one tally for all threads, which two threads
    importing at once corrupt (negative self times)."""
    with timings.phase("model import"):
        for module in modules:
            importlib.import_module(module)
