"""faiss's OpenMP threads: one for single queries, the free cores for bulk work."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import faiss

from kbsearch.runtime.cores import all_cores, free_cores

__all__ = ["all_cores", "free_cores", "omp_threads"]

# One query at a time is kbsearch's common case, and for it OpenMP's thread
# start-up and spin-waiting cost far more than the search itself
# (docs/performance.md). Bulk callers raise it.
faiss.omp_set_num_threads(1)


@contextmanager
def omp_threads(count: int) -> Iterator[None]:
    """faiss's OpenMP thread count for a bulk job, restored afterwards."""
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(count)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(before)
