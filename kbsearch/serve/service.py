"""The operations the server offers, over the ``KnowledgeBase`` facade.

Reads run on a pool of threads, each with its own connection to the index;
checks run on pools of their own, so that reads never wait behind a long
check: a short one (an increment) at the readers' priority, a big one at a
lower one; writes (``check`` with accept) run on one writer thread and take the
same writer lock as the CLI, with a short timeout: a busy index is reported
(503, retry later), never waited on for minutes. The check and write pools
hold at most ``queue`` waiting requests; one more is refused at once (503).
Every request runs under a time budget and stops when its caller goes away
(``kbsearch.runtime.cancel``). Every read runs in one SQLite snapshot, whose
generation the store compares with its vector cache's, so an ingest by
another process is seen by the next request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar, cast

from kbsearch.dedupe.results import CheckResult, Explanation, Neighbours
from kbsearch.errors import KbError, Stopped
from kbsearch.kb import Encoder, IndexShare, KnowledgeBase, ModelSpec, SharedEncoder, read_ahead, run_side_by_side
from kbsearch.records import Record
from kbsearch.render import warn_unnamed
from kbsearch.responses import Listing, SearchResponse, Stats
from kbsearch.runtime.cancel import Cancellation
from kbsearch.serve.options import BUDGET, CHECKERS, LOCK_TIMEOUT, QUEUE, READERS, WARMED_RECORDS
from kbsearch.serve.pool import KbPool
from kbsearch.serve.requests import (
    CheckRequest,
    ExplainRequest,
    ListRequest,
    SearchRequest,
    ShowRequest,
    SimilarRequest,
)
from kbsearch.serve.tokens import Access
from kbsearch.serve.warming import Warming

log = logging.getLogger("kbsearch.serve")
T = TypeVar("T")
TURN = 16
"""Texts a big check embeds before letting a waiting query have the model
(16 take the default model about 50 ms on an idle core)."""
CHECK_NICE = 10
"""Threads checking big texts run at this nice value: on busy cores a search's thread goes first."""
QUICK_CHECK_CHARS = 2_000
"""A check of at most this many characters (one increment, as an agent sends
them one at a time: a few hundred; the seeds' increments 400 to 1,200) runs on its own thread at the readers'
priority. Beside sixteen busy search clients, niced threads got so little of
two cores that 184 of 191 such checks were refused (docs/serve.md)."""


STOPPING = "the server is stopping"
AFTER_STOPPING = ("send it again once the server is back, or run it without the server", 10.0)
"""What a caller whose request the stop cut short is told to do, and after how many seconds."""


class Forbidden(KbError):
    """The caller's token does not allow this (the server answers 403)."""


class Service:
    """One index and one model, warm, for many concurrent callers."""

    def __init__(
        self,
        root: Path,
        spec: ModelSpec,
        *,
        readers: int = READERS,
        lock_timeout: float = LOCK_TIMEOUT,
        checkers: int = CHECKERS,
        queue: int = QUEUE,
        budget: float | None = BUDGET,
        encoder: Encoder | None = None,
        judge: Encoder | None = None,
        warm_records: int = WARMED_RECORDS,
    ) -> None:
        self.root, self.spec, self.lock_timeout, self.budget = root, spec, lock_timeout, budget
        self._stopping = False
        self._running: set[Cancellation] = set()
        run_side_by_side()  # before the models load: a check's model runs leave a core to the searches
        with KnowledgeBase(root, spec) as kb:  # "no index at …" or a model mismatch, before anything starts
            kb.stats()
            judge_spec = kb.judge_spec
        read_ahead(root)  # while the models load: the searches' pages in memory from the first request on
        self.encoder = SharedEncoder(spec, encoder, turn=TURN)
        _ = self.encoder.dim  # the model loads now, not on the first request
        self.judge = None
        if judge_spec is not None:
            self.judge = SharedEncoder.judge_of(judge_spec, spec.name, judge)
            _ = self.judge.dim  # and its judge
        self.indexes = IndexShare()
        self._readers = KbPool(self._open, readers, "read")
        self._checkers = KbPool(self._open, checkers, "check", max_waiting=queue, nice=CHECK_NICE)
        self._quick_checkers = KbPool(self._open, 1, "quick-check", max_waiting=queue)
        self._writer = KbPool(self._open, 1, "write", max_waiting=queue)
        self._pools = (self._readers, self._checkers, self._quick_checkers, self._writer)
        for pool in self._pools:
            pool.wait_ready()
        self._checkers.submit(_warm_up).result()
        self.warming = Warming(self._quick_checkers, warm_records, lambda: self._stopping)

    def _open(self) -> KnowledgeBase:
        encoder = cast(Encoder, self.encoder)  # the Protocol's plain attributes are properties here
        judge = cast(Encoder, self.judge) if self.judge is not None else None
        return KnowledgeBase(
            self.root, self.spec, encoder=encoder, judge=judge, lock_timeout=self.lock_timeout, index_share=self.indexes
        )

    def close(self) -> None:
        self.warming.close()
        for pool in self._pools:
            pool.close()

    @property
    def is_stopping(self) -> bool:
        return self._stopping

    def stopping(self) -> None:
        """The server is stopping (SIGTERM, Ctrl-C): every running job stops at its
        next checkpoint, and a queued one never starts, each answering 503 with
        "the server is stopping … nothing was written"."""
        self._stopping = True
        for cancellation in list(self._running):
            cancellation.cancel(STOPPING, retry=AFTER_STOPPING)

    async def _run(self, pool: KbPool, job: Callable[[KnowledgeBase], T]) -> T:
        """``job``'s result, under the budget; cancelling the caller's task (the
        client went away) stops the job at its next checkpoint, or before it starts.

        While the server stops, its tasks are cancelled once its grace period is
        over: the job is then told to stop and its own outcome is awaited, so that
        the caller learns what really happened (stopped, nothing written; or
        finished, an accept stored), never a guess while a write may still commit."""
        cancellation = Cancellation(self.budget)
        if self._stopping:
            cancellation.cancel(STOPPING, retry=AFTER_STOPPING)
        future = pool.submit(job, cancellation)
        self._running.add(cancellation)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            if not self._stopping:
                cancellation.cancel("the client went away")
                raise
            cancellation.cancel(STOPPING, retry=AFTER_STOPPING)
            return await _outcome(future)
        finally:
            self._running.discard(cancellation)

    async def _read(self, job: Callable[[KnowledgeBase], T]) -> T:
        return await self._run(self._readers, job)

    async def search(self, req: SearchRequest) -> SearchResponse:
        return await self._read(lambda kb: kb.search(req.query, req.k, req.search_filter(), req.mode))

    async def check(self, req: CheckRequest, access: Access) -> CheckResult:
        if req.accept and access < Access.write:
            raise Forbidden("accepting needs the write token", hint="send serve-write.token's content as the bearer")

        if req.skip_duplicates and not req.accept:  # a check alone stores nothing: there is nothing to skip
            raise KbError("skip_duplicates needs accept", hint='send "accept": true as well, or drop skip_duplicates')

        def job(kb: KnowledgeBase) -> CheckResult:
            if req.accept:  # a write: the log says when it began (a stop or a lost client may cut it short)
                log.info("check --accept of %s: started", req.input or req.path or "-")
            config = kb.dedupe_config(fields=req.config, name=req.config_path)
            options = {"as_of": req.as_of, "accept": req.accept, "replace": req.replace, "config": config}
            options["skip_duplicates"] = req.skip_duplicates
            result = kb.check_text(req.text, name=req.path, input_name=req.input, **options)
            if req.accept and req.path is None:  # stored with no file, writer or day: said, as the CLI says it
                warn_unnamed(result, "server")
            return result

        return await self._run(self._check_pool(req), job)

    def _check_pool(self, req: CheckRequest) -> KbPool:
        if req.accept:
            return self._writer
        return self._quick_checkers if len(req.text) <= QUICK_CHECK_CHARS else self._checkers

    async def show(self, req: ShowRequest) -> Record:
        return await self._read(lambda kb: kb.show(req.id))

    async def similar(self, req: SimilarRequest) -> Neighbours:
        return await self._read(
            lambda kb: kb.similar(
                req.id,
                req.k,
                req.search_filter(),
                config=kb.dedupe_config(claims=False, fields=req.config, name=req.config_path),
            )
        )

    async def explain(self, req: ExplainRequest) -> Explanation:
        return await self._read(
            lambda kb: kb.explain(
                req.a,
                req.b,
                kb.dedupe_config(claims=req.claim is not None, fields=req.config, name=req.config_path),
                as_of=req.as_of,
                claim=req.claim,
            )
        )

    async def listing(self, req: ListRequest) -> Listing:
        return await self._read(lambda kb: kb.listing(req.search_filter(), req.limit))

    async def stats(self) -> Stats:
        return await self._read(lambda kb: kb.stats())


async def _outcome(future: Future[T]) -> T:
    """``future``'s result once its job has ended, whatever cancels the caller
    meanwhile (the job stops at its next checkpoint: a turn at the model, an item)."""
    while not future.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.05)
    if future.cancelled():  # still queued when the stop came: never started
        raise Stopped(
            f"stopped: {STOPPING}; nothing was written", hint=AFTER_STOPPING[0], retry_after=AFTER_STOPPING[1]
        )
    return future.result()


def _warm_up(kb: KnowledgeBase) -> None:
    """One check, at start: the first loads what only checks read (the judge's
    token model: seconds of CPU and hundreds of MB), which would otherwise
    load during the first caller's check while every search waited. An error
    is the first request's to report."""
    with contextlib.suppress(KbError):
        kb.check_text("kbsearch serve warm-up")
