"""``kbsearch serve``'s options and their defaults, read by the CLI's parser,
the package's runner and the service (kept apart, so that none of them
imports another for them)."""

from __future__ import annotations

from dataclasses import dataclass

# The defaults of ``kbsearch serve``'s options, read by its parser and the service.
READERS = 3
LOCK_TIMEOUT = 10.0
MAX_BODY = 16 * 1024 * 1024
CHECKERS = 2
QUEUE = 8
"""Check (or accept) requests that may wait for a thread: a real briefing
takes a fraction of a second, so eight wait seconds at most."""
WARMED_RECORDS = 10_000
"""The newest records the quick-check thread builds ahead at start, and after a write those it
added (``warming``): the whole
10k bench index, about 28 KB a record there (20 KB the record with its vectors and words,
7 KB the rules' reading of its text; tracemalloc over 1,000 records), 280 MB in all."""
WORKERS = 1
"""Processes answering HTTP requests (``kbsearch.serve.workers``)."""
BUDGET = 60.0
"""Seconds a request may take, waiting included: the largest check the input
limits allow took 34 s in a server beside 4 searching clients, on two cores
at load average 7 (its threads yield the cores to searches)."""


@dataclass
class ServeOptions:
    index: str | None
    """--index, else $KBSEARCH_INDEX, else ./index."""
    model: str | None
    stdio: bool
    http: str | None
    allow_remote: bool = False
    readers: int = READERS
    lock_timeout: float = LOCK_TIMEOUT
    max_body: int = MAX_BODY
    checkers: int = CHECKERS
    """Threads that check (a check never takes a reader's thread)."""
    queue: int = QUEUE
    budget: float = BUDGET
    workers: int = WORKERS
    warm_records: int = WARMED_RECORDS
    """Records built ahead for short checks at start (0: none)."""
    """Processes answering HTTP requests, each with its own models and threads."""
    verbose: bool = False
    """-v: the libraries' own messages (faiss's loader, the model's) too."""
