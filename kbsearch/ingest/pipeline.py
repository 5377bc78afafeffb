"""Ingest: parse files, work out what changed, embed only new text, write once.

The encoder is loaded only when some text has no stored vector yet, so
re-ingesting unchanged files never loads a model.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Collection, Iterator
from pathlib import Path

import numpy as np
from pydantic import BaseModel

import kbsearch.ingest.ownership as ownership
import kbsearch.runtime.timings as timings
from kbsearch.embed import Encoder
from kbsearch.errors import KbError, RecordNotFound
from kbsearch.ingest.embedding import Embedder, Judge, Progress, embed
from kbsearch.ingest.refusals import refuse_taken
from kbsearch.ingest.report import SHOWN_REMOVED, IngestReport
from kbsearch.ingest.section_dates import dated_as_stored
from kbsearch.ingest.sources import as_stored, same_file
from kbsearch.parse.jsonl import JsonlFile
from kbsearch.records import IdMention, ParsedFile, Record, text_hash
from kbsearch.responses import Removal
from kbsearch.store import ChangeSet, JudgeVectors, Store
from kbsearch.store.ledger import IngestLedger
from kbsearch.store.texts import all_passage_texts, whole_texts

LOOKAHEAD = 20_000
PLAN_CHUNK = 4_096
"""Records planned, embedded and written at a time: memory holds one chunk,
however long the input."""


Input = ParsedFile | JsonlFile


def ingest_parsed(
    store: Store,
    parsed: list[Input],
    report: IngestReport,
    paths: list[Path],
    *,
    load_encoder: Callable[[], Encoder],
    judge: Judge | None = None,
    prune: bool = False,
    progress: Progress | None = None,
    chunk: int = PLAN_CHUNK,
    include_skipped: bool = False,
    defer_judge: bool = False,
) -> None:
    """Plan and write what ``read_inputs`` produced; the caller holds the writer lock.

    The files holding an id another file owns are refused first (see
    ``ownership``). Planning then runs inside the write transaction, a chunk
    of records at a time: each chunk is compared with what is stored, its new
    text embedded, and written before the next is read."""
    ledger = store.ingest_ledger()
    with timings.phase("plan"):
        refuse_taken(store, ledger, parsed, report, chunk)  # refused before the models load too (KnowledgeBase.ingest)
    planner = _Planner(store, ledger, report, prune, total=sum(p.count for p in parsed), progress=progress, chunk=chunk)
    planner.include_skipped = include_skipped
    folders = [p.resolve() for p in paths if p.is_dir()]
    changes = ChangeSet(more=planner.parts(parsed, folders))
    ingest_records(
        store,
        changes,
        model=report.model,
        load_encoder=load_encoder,
        judge=judge,
        progress=progress,
        report=report,
        defer_judge=defer_judge,
    )


def ingest_records(
    store: Store,
    changes: ChangeSet,
    *,
    model: str,
    load_encoder: Callable[[], Encoder],
    judge: Judge | None = None,
    progress: Progress | None = None,
    report: IngestReport | None = None,
    defer_judge: bool = False,
) -> None:
    """Embed what has no vector yet, for the model and its judge, and write
    ``changes`` in one transaction. ``defer_judge``: the judge's vectors are
    left to the background fill the caller starts (``kbsearch.kb.judge_fill``).

    Each part of the change set is embedded just before it is written, so a
    model is loaded only when some text is new to it."""
    embedder = Embedder(store, model, load_encoder, judge, progress, defer_judge)
    store.apply(ChangeSet(more=(embedder.embedded(part) for part in changes.parts())), model)
    if report is not None:
        report.embedded = embedder.count
        report.judge_embedded = embedder.judge_count
        report.judge_deferred = embedder.judge_deferred


class _Planner:
    """What each input changes, a chunk of records at a time."""

    def __init__(
        self,
        store: Store,
        ledger: IngestLedger,
        report: IngestReport,
        prune: bool,
        total: int,
        progress: Progress | None,
        chunk: int,
    ) -> None:
        self.store, self.ledger, self.report, self.prune, self.chunk = store, ledger, report, prune, chunk
        self.total, self.done, self.progress = total, 0, progress
        self.include_skipped = False  # --include-skipped: store what check --accept --skip-duplicates left out

    def parts(self, inputs: list[Input], folders: list[Path]) -> Iterator[ChangeSet]:
        """``ledger`` holds every id of ``inputs`` already (see ``ownership.clashes``)."""
        sources = set()
        for item in inputs:
            sources.add(item.source)
            yield from self._file_parts(item)
        # Consumed: the parts hold what will be written, and the store lets
        # each go after writing it.
        inputs.clear()
        if self.prune:
            with timings.phase("plan"):
                gone = _vanished(self.store, self.ledger, folders, sources)
            self._count_removed(gone)
            yield ChangeSet(deletes=gone)
        else:
            self.report.warnings += ownership.moved_away(self.store, self.ledger, folders, sources)

    def _file_parts(self, item: Input) -> Iterator[ChangeSet]:
        renamed = ownership.renames(self.store, self.ledger, item)
        if renamed:
            self.report.warnings += [f"{item.source}: record {old!r} is now {new!r}" for old, new in renamed.items()]
            yield ChangeSet(renames=renamed)
        records, days = item.iter_records(), set()
        while chunk := self._read_chunk(records):
            days |= {str(r.date) for r in chunk}
            yield self._plan_chunk(chunk, item.source)
            # Resumed once the part is embedded and written.
            self.done += len(chunk)
            if self.progress:
                self.progress(self.done, self.total)
        # A reused file's id tables of other days stay, as its records do, --prune or not.
        keep_other_days = not self.prune or ownership.day_keyed(self.ledger.unseen_of_file(item.source))
        mentions = (
            ownership.merged_mentions(self.store, item.source, item.id_mentions, days)
            if keep_other_days
            else item.id_mentions
        )
        if not mentions_stored_as_is(self.store, item.source, mentions):
            yield ChangeSet(mentions={item.source: mentions})
        gone = ownership.no_longer_yielded(self.ledger.unseen_of_file(item.source), days)
        # What the file holds but is no record by rule (a doc's preamble of metadata) goes, --prune or not.
        retired = [rid for rid in gone if rid in set(item.not_records)]
        if self.prune or retired:
            dropped = gone if self.prune else retired
            self._count_removed(dropped)
            yield ChangeSet(deletes=dropped)
        if not self.prune and (kept := [rid for rid in gone if rid not in retired]):
            self.report.warnings.append(ownership.stale_line(kept, item.source, "run with --prune to drop them"))

    def _count_removed(self, gone: list[str]) -> None:
        self.report.removed += len(gone)
        self.report.removed_ids += gone[: max(0, SHOWN_REMOVED - len(self.report.removed_ids))]

    def _read_chunk(self, records: Iterator[Record]) -> list[Record]:
        with timings.phase("read input"):  # a JSONL file is parsed as it is read
            return list(itertools.islice(records, self.chunk))

    def _plan_chunk(self, chunk: list[Record], source: str) -> ChangeSet:
        with timings.phase("plan"):
            stored = self.ledger.stored_rows([r.id for r in chunk])
            skips = self.ledger.skipped([r.id for r in chunk])
            part = ChangeSet()
            for n, record in enumerate(chunk):
                record = chunk[n] = dated_as_stored(record, stored[record.id][0] if record.id in stored else None)
                if stored_as_is(stored, record, source):
                    self.report.unchanged += 1
                    continue
                skip = skips.get(record.id)
                if skip is not None and skip.content_hash == record.content_hash and not self.include_skipped:
                    self.report.note_skipped(skip)  # the gate's decision stands while the item is unchanged
                    continue
                if skip is not None:  # rewritten since, or --include-skipped: stored, and the skip forgotten
                    part.forget_skips.append(record.id)
                part.upserts.append(record)
                part.files[record.id] = source
                row = stored.get(record.id)
                moved = row is not None and not same_file(row[1], source)
                same = moved and row is not None and Record.from_document(row[0]).content_hash == record.content_hash
                self.report.note_change(record.id, row, same, source)
            self.report.records += len(chunk)
            return part


def stored_as_is(stored: dict[str, tuple[str, str | None]], record: Record, file: str | None) -> bool:
    """Whether ``record``, read from ``file``, is stored exactly so (``stored``:
    ``IngestLedger.stored_rows``): writing it again would change nothing but its
    time stamp and the index's generation, so ``ingest`` and ``check --accept``
    leave it as it is and call it unchanged."""
    row = stored.get(record.id)
    if row is None:
        return False
    record, file = as_stored(record, file, row[1])  # an old index's relative spelling of the same file
    return row == (record.stored_json(), file)


def mentions_stored_as_is(store: Store, file: str, mentions: list[IdMention]) -> bool:
    """Whether ``file``'s id-table rows are stored exactly so: then ``ingest`` and
    ``check --accept`` write none of them (``stored_as_is`` for the table)."""
    return store.mentions_json(file) == [m.model_dump_json() for m in mentions]


def will_embed(store: Store | None, parsed: list[Input], model: str, *, whole: bool = False) -> bool:
    """Whether some text of ``parsed`` has no ``model`` vector in ``store`` (None: no index
    yet), stopping at the first chunk that lacks one: then the model loads before the lock.
    ``whole``: only each record's whole text counts (what a judge embeds).

    Only the first ``LOOKAHEAD`` texts are asked about: reading a bulk file
    through once more to learn that nothing is new would cost a re-import as
    much again. Text found new further on loads the model under the lock."""
    if store is None:
        return any(p.count for p in parsed)
    texts = (t for p in parsed for r in p.iter_records() for t in ([r.embed_text()] if whole else r.passages()))
    hashes = (text_hash(t) for t in texts)
    for _ in range(LOOKAHEAD // 2_000):
        chunk = list(itertools.islice(hashes, 2_000))
        if not chunk:
            break
        if store.missing_hashes(chunk, model):
            return True
    return False


def remove_records(store: Store, record_ids: list[str], model: str) -> Removal:
    """Delete records in one transaction; the caller holds the writer lock. An unknown
    id is an error, and then nothing is removed."""
    if not record_ids:
        raise KbError("no record id given", hint="ids are listed by 'kbsearch list --json'")
    missing = [r for r in record_ids if r not in store.rowids_of(record_ids)]
    if missing:
        raise RecordNotFound(
            f"no record with id {', '.join(repr(m) for m in missing)}; nothing was removed",
            hint="ids are listed by 'kbsearch list --json'",
        )
    store.apply(ChangeSet(deletes=record_ids), model=store.model or model)
    return Removal(removed=record_ids, records=store.count(), generation=store.generation)


class ReindexReport(BaseModel):
    model: str
    judge: str | None = None
    """The judge whose whole-text vectors the index now keeps (None: no judge)."""
    records: int
    embedded: int
    judge_embedded: int = 0
    again: list[str] = []
    """The models every text was embedded again with (``--force``), stored vectors aside."""
    kept: list[str] = []
    """The models ``--force`` kept the vectors of: their folder did not change, another's did."""
    seconds: float


def reindex_store(
    store: Store,
    *,
    model: str,
    load_encoder: Callable[[], Encoder],
    judge: Judge | None = None,
    progress: Progress | None = None,
    again: Collection[str] = (),
) -> ReindexReport:
    """Rebuild every vector for ``model`` (and its judge) from the text kept in SQLite;
    ``again``: the models (``model``, the judge's) that embed every text again, their stored vectors aside."""
    started = time.perf_counter()
    texts = all_passage_texts(store)
    missing = sorted(texts if model in again else store.missing_hashes(texts, model))
    dim = store.stored_dim(model) if texts and not missing else None
    vectors: dict[str, np.ndarray] = {}
    if dim is None:
        # Only load the model when something needs embedding: rebuilding a
        # lost cache from stored vectors takes no model at all.
        encoder = load_encoder()
        with timings.phase("embed"):
            vectors = embed(encoder, [(h, texts[h]) for h in missing], None, progress)
        dim = encoder.dim
    judged = 0
    judge_vectors = None
    if judge is not None:
        wholes = whole_texts(store)
        todo = sorted(wholes if judge.model in again else store.missing_hashes(wholes, judge.model))
        judged = len(todo)
        judge_encoder = judge.load() if todo else None
        with timings.phase("judge embed"):
            batch = embed(judge_encoder, [(h, wholes[h]) for h in todo], None, progress) if judge_encoder else {}
        judge_vectors = JudgeVectors(judge.model, [batch])
    with timings.phase("write"):
        store.rebind_model(model, vectors, dim, judge_vectors)
    return ReindexReport(
        model=model,
        judge=judge.model if judge is not None else None,
        records=store.count(),
        embedded=len(missing),
        judge_embedded=judged,
        seconds=round(time.perf_counter() - started, 3),
    )


def _vanished(store: Store, ledger: IngestLedger, folders: list[Path], parsed_sources: set[str]) -> list[str]:
    """Ids of records whose source file, inside an ingested folder, is gone."""
    gone: list[str] = []
    for file in store.files():
        path = Path(file)
        inside = any(path.is_relative_to(folder) for folder in folders)
        if inside and file not in parsed_sources and not path.exists():
            gone += ledger.unseen_of_file(file)
    return gone
