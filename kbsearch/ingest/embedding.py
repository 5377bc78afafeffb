"""Embedding inside an ingest: the vectors a change set's new text lacks.

Ingest writes a bulk input part by part in one transaction; ``Embedder``
fills each part with the vectors of the passages the store has no vector of
yet, just before the part is written, so the model is loaded only when some
text is new and memory holds one part's vectors at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

import kbsearch.runtime.timings as timings
from kbsearch.embed import Encoder
from kbsearch.errors import KbError
from kbsearch.records import Record, text_hash
from kbsearch.runtime.overlap import side_by_side
from kbsearch.store import ChangeSet, JudgeVectors, Store

Progress = Callable[[int, int], None]
EMBED_BATCH = 256


@dataclass(frozen=True)
class Judge:
    """An index's judge model (models.txt ``judge=``): its name, and how to load
    it, which happens only when some whole text has no vector of it yet."""

    model: str
    load: Callable[[], Encoder]


class Embedder:
    """Vectors for a part's passages that the store lacks, batched by length,
    and the judge's vectors of its records' whole texts (``defer_judge``: left
    to the background fill, which an ingest starts; every reader computes a
    missing one on demand meanwhile, ``kbsearch/store/judge_vectors.py``)."""

    def __init__(
        self,
        store: Store,
        model: str,
        load_encoder: Callable[[], Encoder],
        judge: Judge | None,
        progress: Progress | None,
        defer_judge: bool = False,
    ) -> None:
        self.store, self.model, self.load_encoder, self.progress = store, model, load_encoder, progress
        self.judge, self.defer_judge = judge, defer_judge
        self.encoder: Encoder | None = None
        self.judge_encoder: Encoder | None = None
        self.count = self.judge_count = self.judge_deferred = 0

    def embedded(self, part: ChangeSet) -> ChangeSet:
        """The part with its vectors: the judge's run on a thread beside the index
        model's (onnxruntime and numpy both leave the GIL), so the two share the cores."""
        if self.judge is None or not part.upserts:
            return self._with_vectors(part)
        if self.defer_judge:  # the background fill embeds them (``kbsearch/kb/judge_fill.py``)
            todo = {text_hash(r.embed_text()) for r in part.upserts}
            self.judge_deferred += len(self.store.missing_hashes(todo, self.judge.model))
            embedded = self._with_vectors(part)
            embedded.judge = JudgeVectors(self.judge.model)  # binds the judge, with none of its vectors yet
            return embedded
        judging = self._judge_work(part.upserts, self.judge)
        embedded, judged = side_by_side(lambda: self._with_vectors(part), judging, "judge embed wait")
        embedded.judge = judged
        return embedded

    def _with_vectors(self, part: ChangeSet) -> ChangeSet:
        with timings.phase("embed"):
            todo = {text_hash(t): t for r in part.upserts for t in r.passages()}
            missing = self.store.missing_hashes(todo, self.model)
            if not missing:
                return part
            if self.encoder is None:
                self.encoder = self.load_encoder()
                check_dim(self.encoder, self.store)
            # Longest first, so each batch holds texts of about one length and the
            # encoder pads little.
            ordered = sorted(missing, key=lambda h: -len(todo[h]))
            for batch in embed_batches(self.encoder, [(h, todo[h]) for h in ordered], self.progress):
                part.vectors.update(batch)
            self.count += len(missing)
            return part

    def _judge_work(self, records: list[Record], judge: Judge) -> Callable[[], JudgeVectors]:
        """The judge's run over the whole texts it has no vector of yet, to be called on
        any thread: what it needs of the store and the model is read here, first."""
        todo = {text_hash(t): t for t in (r.embed_text() for r in records)}
        missing = sorted(self.store.missing_hashes(todo, judge.model))
        if not missing:
            return lambda: JudgeVectors(judge.model)
        encoder = self._judge_encoder(judge)
        self.judge_count += len(missing)

        def run() -> JudgeVectors:
            vectors: dict[str, np.ndarray] = {}
            with timings.phase("judge embed"):
                for batch in embed_batches(encoder, [(h, todo[h]) for h in missing], None):
                    vectors.update(batch)
            return JudgeVectors(judge.model, [vectors])

        return run

    def _judge_encoder(self, judge: Judge) -> Encoder:
        if self.judge_encoder is None:
            self.judge_encoder = judge.load()
            stored = self.store.stored_dim(judge.model)
            if stored is not None and stored != self.judge_encoder.dim:
                raise KbError(
                    f"judge {judge.model!r} gives {self.judge_encoder.dim}-d vectors "
                    f"but the index holds {stored}-d ones",
                    hint="run 'kbsearch reindex' after changing a judge's weights, or give the new one its own name",
                )
        return self.judge_encoder


def check_dim(encoder: Encoder, store: Store | None) -> None:
    if store is not None and store.dim is not None and store.count() and encoder.dim != store.dim:
        raise KbError(
            f"model {encoder.model_id!r} gives {encoder.dim}-d vectors but the index holds {store.dim}-d ones",
            hint=f"run 'kbsearch reindex --model {encoder.model_id}'",
        )


def embed_batches(
    encoder: Encoder, items: list[tuple[str, str]], progress: Progress | None
) -> Iterator[dict[str, np.ndarray]]:
    for start in range(0, len(items), EMBED_BATCH):
        batch = items[start : start + EMBED_BATCH]
        encoded = encoder.encode([text for _, text in batch])
        if progress:
            progress(min(start + EMBED_BATCH, len(items)), len(items))
        yield {h: encoded[i] for i, (h, _) in enumerate(batch)}


def embed(
    encoder: Encoder, items: list[tuple[str, str]], store: Store | None, progress: Progress | None
) -> dict[str, np.ndarray]:
    check_dim(encoder, store)
    vectors: dict[str, np.ndarray] = {}
    for batch in embed_batches(encoder, items, progress):
        vectors.update(batch)
    return vectors
