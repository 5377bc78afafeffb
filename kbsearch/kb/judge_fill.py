"""The judge's whole-text vectors of what an ingest wrote, computed after it, in the background.

e5 costs about three times USE's CPU a record (docs/performance.md, "The
judge"): run beside USE inside the ingest, it held the ingest at about half
the speed of USE alone. So an ingest with the fill on (exactly when the token
fill is: ``token_fill.due``) writes its records with USE's vectors and the
judge bound but none of its vectors, and returns; the background process it
starts (``python -m kbsearch.kb.token_fill``) runs ``fill_judge`` first,
before any token vector: it embeds every whole text lacking a judge vector,
newest records first, and writes each batch in a transaction of its own under
the writer lock, so a user's next ingest waits for one batch's write
(milliseconds: the encoding runs outside the lock). Until then every reader
computes a missing vector on demand (``kbsearch/store/judge_vectors.py``).

This is sound only because a judge vector is a function of its text alone
(the e5 graph runs each text alone, ``OnnxE5.encode``, ``sentence_version``
2): the vector a check computes before the fill, the one the fill writes and
the one an inline ingest stores are the same bits, so a check's result does
not depend on whether the fill has run (``tests/test_judge_fill.py`` holds
it). Stop 66's deferral was reverted for exactly that: int8 runs of many
texts gave a vector that depended on its run's other texts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

import kbsearch.store.writer as writer
from kbsearch.embed import Encoder
from kbsearch.kb.writer_lock import LOCK_NAME, WriterLock
from kbsearch.models import ModelSpec
from kbsearch.store import Store
from kbsearch.store.judge_vectors import JudgeOnDemand, lacking_texts, put_judge_vectors


def on_demand(judge: ModelSpec | None, load: Callable[[], Encoder | None]) -> JudgeOnDemand | None:
    """What a reader computes a missing judge vector with: ``load()``'s judge, loaded at the first."""

    def encode(texts: list[str]) -> np.ndarray:
        encoder = load()
        assert encoder is not None  # a judge is named
        return encoder.encode(texts)

    return None if judge is None else JudgeOnDemand(judge.name, encode)


def fill_judge(root: Path, judge: str, load: Callable[[], Encoder]) -> int:
    """Embed and write the judge vectors the index at ``root`` lacks: how many were written.
    Nothing when there is no index, or it keeps another judge's vectors, or none (a reindex
    changed it). ``load``: the judge, called only when some vector lacks."""
    from kbsearch.ingest.embedding import EMBED_BATCH  # a batch per transaction: not on a check's path
    from kbsearch.ingest.pipeline import PLAN_CHUNK

    if not Store.exists(root):
        return 0
    store = Store.open(root)
    written, encoder = 0, None
    try:
        if store.judge != judge:
            return 0
        for texts in lacking_texts(store, judge, PLAN_CHUNK):
            encoder = encoder or load()
            hashes = sorted(texts)
            for begin in range(0, len(hashes), EMBED_BATCH):
                some = hashes[begin : begin + EMBED_BATCH]
                encoded = encoder.encode([texts[h] for h in some])
                written += _write(store, judge, dict(zip(some, encoded, strict=True)))
    finally:
        store.close()
    return written


def _write(store: Store, judge: str, vectors: dict[str, np.ndarray]) -> int:
    """One batch, in a transaction of its own under the writer lock: an ingest waits for this, not the encoding."""
    with WriterLock(store.root / LOCK_NAME, None), writer.transaction(store) as db:
        return put_judge_vectors(db, judge, vectors)


def pending(root: Path, judge: str) -> bool:
    """Whether some record of the index at ``root`` lacks its ``judge`` vector."""
    store = Store.open(root)
    try:
        return store.judge == judge and next(lacking_texts(store, judge), None) is not None
    finally:
        store.close()
