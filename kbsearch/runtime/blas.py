"""NumPy's BLAS at one thread for the many small products of a check.

A check multiplies a few hundred small matrices (token alignment: two texts'
token vectors, tens of rows each). OpenBLAS splits each over every core, and
on two busy cores each product waited for a thread: 1.7 ms a product instead
of 0.17 on one (a server's searches and the ONNX runtime's own threads share
those cores). What multiplies big blocks raises the count for its own span
and puts this one back: USE's encoder per batch, audit's block products.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_SET = threading.Event()
_BESIDE = threading.local()


def one_blas_thread() -> None:
    """From now on, in this process, BLAS runs on one thread unless a span asks for more."""
    if _SET.is_set():
        return
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
    _SET.set()


@contextmanager
def beside_other_work() -> Iterator[None]:
    """This thread's work shares the cores with another thread's meanwhile (a
    hybrid search's dense side beside its lexical side): an encoder keeps a
    small product to one BLAS thread (``kbsearch.embed.use``), since a second
    one would spin for it on the core the other work needs."""
    before = getattr(_BESIDE, "on", False)
    _BESIDE.on = True
    try:
        yield
    finally:
        _BESIDE.on = before


def beside() -> bool:
    """Whether this thread runs inside ``beside_other_work``."""
    return bool(getattr(_BESIDE, "on", False))
