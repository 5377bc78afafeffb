"""The judge's vectors of the newest records, computed after an ingest in a process of its own.

A first check of a new item aligns it with its ten nearest candidates and
weighs its claims against their passages, reading the judge's token vectors
of each (e5's float32 token graph: about 0.25 ms a token on two cores). On a
1,000-record index that was 146 of a first warm check's 200 ms. The disk tier
(``kbsearch/embed/token_disk.py``) keeps what a check computed, so an item
checked and accepted today is found there tomorrow; a record that came in
through ``kbsearch ingest`` was never checked, and the first check near it
paid for its tokens.

So an ingest that wrote records starts ``python -m kbsearch.kb.token_fill
INDEX MODEL`` and returns without waiting: at low priority, on one core, it
first embeds and writes the judge's whole-text vectors the ingest left to it
(``kbsearch/kb/judge_fill.py``), then reads the newest records (the rowids written last), as many as the disk
tier has room for (``FILL_SHARE`` of its rows, at most ``$KBSEARCH_TOKEN_FILL``
records), and puts on disk what the disk lacks of them: the judge's vectors of each
record's passages (``kbsearch/dedupe/judged_passages.py``: a check embeds
them for every record it judges the same item), then the token vectors of
their passages and of a whole text short enough to be aligned, newest
first; then it ends. Its rows are stamped newest first, each before the fill
began: the disk tier trims the rows stamped first, so past its bound the
oldest records the fill took go first, after everything checks wrote since.
A check that comes before it is done computes its own, as before. One fill
at a time per index: a second one that finds the lock taken leaves the work
to it.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock, Timeout

import kbsearch.runtime.timings as timings
import kbsearch.store.background as background
from kbsearch.embed.token_disk import STAMP_STEP
from kbsearch.errors import KbError
from kbsearch.kb.judge_fill import fill_judge, pending
from kbsearch.models import ModelSpec, resolve_judge, resolve_model
from kbsearch.records import Record
from kbsearch.settings import settings
from kbsearch.store import Store

if TYPE_CHECKING:
    from kbsearch.embed.token_disk import DiskTokens
    from kbsearch.ingest import IngestReport

FILL_LOCK = ".token-fill.lock"
FILL_SHARE = 0.8
"""Of the disk tier's rows (``$KBSEARCH_TOKEN_CACHE_ROWS``), what a fill may
take: a check meeting a record the fill passed over encodes it, four times a
filled check's CPU (docs/serve.md), so a fill takes what the tier holds; the
rest is room for what checks compute before the tier trims (to 90%, the
rows stamped first going first: the fill's oldest records, see ``_rank``)."""
AT_ONCE = 64
"""Texts per encoder call: the disk is written after each, so an interrupted fill keeps its work."""


def after_ingest(root: Path, spec: ModelSpec, report: IngestReport) -> None:
    """Start a fill when the ingest wrote records and a fill is due."""
    if (report.added or report.updated or report.judge_deferred) and due(spec):
        with timings.phase("token fill start"):
            start(root, spec.name)


def due(spec: ModelSpec) -> bool:
    """Whether an ingest with ``spec``'s model should start a fill: the model has a
    judge, and the disk tier and the fill are on. Then the ingest leaves its judge
    vectors to the fill too (``judge_fill``). Whether the dedupe config reads
    token vectors at all is the fill's own question: it costs a config parse."""
    chosen = settings()
    return spec.judge is not None and chosen.token_fill > 0 and chosen.token_cache_rows > 0


def start(root: Path, model: str) -> None:
    """Start a fill of the index at ``root`` in its own process and session."""
    # One onnxruntime thread: the user's next command has the other core.
    background.start_module(
        "kbsearch.kb.token_fill", str(root), model, env={**os.environ, "KBSEARCH_JUDGE_THREADS": "1"}
    )


def fill(root: Path, model: str | None = None) -> int:
    """Put on disk what a check would compute of the newest records and the disk
    lacks: the judge's vectors of each record's passages (one batch a record, as a
    check embeds them) and, when the config reads them, their token vectors. How
    many texts were encoded or read."""
    from kbsearch.dedupe.config_files import config_for
    from kbsearch.dedupe.judged_passages import disk_key, judged_passages
    from kbsearch.embed import load_judge, load_token_encoder

    spec = resolve_model(model)
    judge = resolve_judge(spec)
    if judge is None:
        return 0
    # First what an ingest left to the fill: the judge's whole-text vectors (judge_fill).
    fill_judge(root, judge.name, lambda: load_judge(judge, spec.name))  # loaded only if some vector lacks
    if spec.search_only:  # no check reads what the rest would fill
        return 0
    store = Store.open(root)
    try:
        store.require_model(spec.name)
        records = newest_records(store, settings().token_fill)
    finally:
        store.close()
    config = config_for(spec, None)
    tokens = load_token_encoder(judge) if config.reads_tokens() else None
    texts: list[str] = []
    if tokens is not None:
        budget = int(settings().token_cache_rows * FILL_SHARE)
        plan = plan_fill(records, tokens.count_tokens, config.aligned_max_tokens, budget)
        records, texts = plan.records, plan.texts
    started = time.time()
    kept = judged_passages(load_judge(judge, spec.name))  # e5's sessions are shared: loaded once
    batches = [record.passages() for record in records]
    for begin in range(0, len(batches), AT_ONCE):
        some = batches[begin : begin + AT_ONCE]
        for passages in some:
            kept.vectors(passages)
        _rank(kept.disk, [disk_key(p) for p in some], started - begin * STAMP_STEP)
    if tokens is None:
        return sum(map(len, batches))
    for begin in range(0, len(texts), AT_ONCE):
        chunk = texts[begin : begin + AT_ONCE]
        tokens.encode_tokens(chunk)  # kept on disk as they are read
        _rank(getattr(tokens, "disk", None), chunk, started - begin * STAMP_STEP)
    return len(texts)


def _rank(disk: DiskTokens | None, texts: list[str], latest: float) -> None:
    """Stamp what the fill wrote or found newest first, each before the fill began: the
    disk tier trims the rows stamped first, so the oldest records the fill took go first,
    and every row a check writes meanwhile outlives them (it was read since)."""
    if disk is not None:
        disk.rank(texts, latest)


def newest_records(store: Store, count: int) -> list[Record]:
    """The ``count`` records written last (the highest rowids), newest first."""
    with store.snapshot():
        rowids = sorted(store.all_rowids(), reverse=True)[:count]
        found = store.by_rowids(rowids)
    return [found[r] for r in rowids if r in found]


@dataclass
class FillPlan:
    records: list[Record]
    """The records taken, newest first."""
    texts: list[str]
    """Their texts a check reads token vectors of."""


def plan_fill(
    records: list[Record],
    count_tokens: Callable[[Sequence[str]], list[int]],
    aligned_max_tokens: int,
    max_rows: int | None = None,
) -> FillPlan:
    """What a check reads token vectors of, record by record in the order given
    (newest first): every passage (the claims are weighed against them), and
    the whole text where it is short enough to be aligned
    (``DedupeConfig.aligned_max_tokens``) but is not a passage. With ``max_rows``,
    records are taken while their texts' token rows add up to at most that."""
    passages = [r.passages() for r in records]
    own = [list(dict.fromkeys([*p, r.embed_text()])) for r, p in zip(records, passages, strict=True)]
    counts = iter(count_tokens([t for texts in own for t in texts]))
    taken: list[Record] = []
    chosen: dict[str, None] = {}
    rows = 0
    for record, texts, its_passages in zip(records, own, passages, strict=True):
        sized = [(t, next(counts)) for t in texts]
        kept = [(t, n) for t, n in sized if t not in chosen and (t in its_passages or n <= aligned_max_tokens)]
        rows += sum(n for _, n in kept)
        if max_rows is not None and rows > max_rows:
            break
        taken.append(record)
        chosen.update(dict.fromkeys(t for t, _ in kept))
    return FillPlan(taken, list(chosen))


def running(root: Path) -> bool:
    """Whether a fill is at work on the index at ``root`` (``doctor`` says so). It takes the
    lock for an instant: a fill starting then waits ``LOCK_WAIT``, and goes on. No lock file (no
    fill ever ran), or one this user cannot open (a read-only index): none is."""
    if not (root / FILL_LOCK).exists():
        return False
    try:
        with FileLock(str(root / FILL_LOCK), timeout=0):
            return False
    except Timeout:
        return True
    except OSError:
        return False


LOCK_WAIT = 1.0
"""Seconds a fill waits for another's lock: past that, it leaves the work to the other."""


def main(argv: list[str]) -> int:
    root, model = Path(argv[0]), (argv[1] if len(argv) > 1 else None)
    os.nice(10)  # behind whatever the user runs next
    for _ in range(3):
        try:
            with FileLock(str(root / FILL_LOCK), timeout=LOCK_WAIT):
                fill(root, model)
            # An ingest that wrote while this fill ran found the lock taken and left its judge vectors
            # here: they are done before this ends (a few rounds: ingests do not come back to back for long).
            judge = resolve_judge(resolve_model(model))
            if judge is None or not pending(root, judge.name):
                return 0
        except Timeout:
            return 0  # another fill is at it
        except KbError:
            return 1  # the index changed under it (reindexed, removed, busy for minutes): the next ingest's fill
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
