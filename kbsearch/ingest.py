"""Ingest: parse files, work out what changed, embed only new text, write once.

The encoder is loaded only when some text has no stored vector yet, so
re-ingesting unchanged files never loads a model.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from kbsearch import ownership
from kbsearch.embed import Encoder
from kbsearch.errors import KbError, RecordNotFound
from kbsearch.records import ParsedFile, Record, text_hash
from kbsearch.responses import Removal
from kbsearch.store import ChangeSet, JudgeVectors, Store

Progress = Callable[[int, int], None]
EMBED_BATCH = 256


@dataclass(frozen=True)
class Judge:
    """An index's judge model (models.txt ``judge=``): its name, and how to load
    it, which happens only when some whole text has no vector of it yet."""

    model: str
    load: Callable[[], Encoder]


class FileProblem(BaseModel):
    path: str
    line: int | None = None
    message: str

    def one_line(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


class IngestReport(BaseModel):
    """What one ingest did; printed as text or JSON by the CLI."""

    model: str
    files: int = 0
    records: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    embedded: int = 0
    judge_embedded: int = 0
    """Whole texts the judge model embedded in this run (one per new or changed record)."""
    refused: list[FileProblem] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    seconds: float = 0.0


def read_inputs(paths: list[Path], report: IngestReport) -> list[ParsedFile]:
    """Parse every input; refused ones go to ``report``. KbError when nothing could be read.

    Nothing touches the index here, so a refused input leaves it as it was.
    """
    from kbsearch.parse import iter_input_files

    parsed = _parse_all(iter_input_files(paths), report)
    if not parsed and report.refused:
        more = len(report.refused) - 1
        raise KbError(
            f"nothing could be ingested: {report.refused[0].one_line()}"
            + (f" (and {more} more {'input' if more == 1 else 'inputs'})" if more else "")
        )
    return parsed


def ingest_parsed(
    store: Store,
    parsed: list[ParsedFile],
    report: IngestReport,
    paths: list[Path],
    *,
    load_encoder: Callable[[], Encoder],
    judge: Judge | None = None,
    prune: bool = False,
    progress: Progress | None = None,
) -> None:
    """Plan and write what ``read_inputs`` produced; the caller holds the writer lock."""
    parsed[:] = _owned(store, parsed, report)
    changes = _plan(store, parsed, report, prune, [p.resolve() for p in paths if p.is_dir()])
    # Consumed: the plan holds what will be written, and the store lets it go
    # after its commit, so 100k parsed records are not kept through the index build.
    parsed.clear()
    ingest_records(
        store, changes, model=report.model, load_encoder=load_encoder, judge=judge, progress=progress, report=report
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
) -> None:
    """Embed what has no vector yet, for the model and its judge, and write
    ``changes`` in one transaction."""
    todo = {text_hash(t): t for r in changes.upserts for t in r.passages()}
    missing = sorted(store.missing_hashes(todo, model))
    if missing:
        encoder = load_encoder()
        _check_dim(encoder, store)
        # Embedded inside the write transaction, batch by batch: each batch
        # goes to SQLite and is let go, so memory does not grow with the input.
        changes.vector_batches = _embed_batches(encoder, [(h, todo[h]) for h in missing], progress)
        changes.dim = encoder.dim
    judged = _judge_vectors(store, changes.upserts, judge, progress)
    changes.judge = judged[0]
    if report is not None:
        report.embedded = len(missing)
        report.judge_embedded = judged[1]
    if changes.upserts or changes.deletes or changes.mentions:
        store.apply(changes, model)
    else:
        # Nothing to write, but a killed run may have left the cache behind
        # the database: rewrite it now that we hold the lock.
        store.repair_cache()


def _judge_vectors(
    store: Store, records: list[Record], judge: Judge | None, progress: Progress | None
) -> tuple[JudgeVectors | None, int]:
    """The judge's vectors of the whole texts that have none yet, to embed in
    the write transaction, and how many there are."""
    if judge is None:
        return None, 0
    todo = {text_hash(t): t for t in (r.embed_text() for r in records)}
    missing = sorted(store.missing_hashes(todo, judge.model))
    if not missing:
        return JudgeVectors(judge.model), 0
    encoder = judge.load()
    stored = store.stored_dim(judge.model)
    if stored is not None and stored != encoder.dim:
        raise KbError(
            f"judge {judge.model!r} gives {encoder.dim}-d vectors but the index holds {stored}-d ones",
            hint="run 'kbsearch reindex' after changing a judge's weights, or give the new one its own name",
        )
    return JudgeVectors(judge.model, _embed_batches(encoder, [(h, todo[h]) for h in missing], progress)), len(missing)


def will_embed(store: Store | None, parsed: list[ParsedFile], model: str, *, whole: bool = False) -> bool:
    """Whether some text of ``parsed`` has no ``model`` vector in ``store`` (None: no index
    yet), stopping at the first chunk that lacks one: then the model loads before the lock.
    ``whole``: only each record's whole text counts (what a judge embeds)."""
    if store is None:
        return any(p.records for p in parsed)
    texts = (t for p in parsed for r in p.records for t in ([r.embed_text()] if whole else r.passages()))
    hashes = (text_hash(t) for t in texts)
    while chunk := list(itertools.islice(hashes, 2000)):
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
    seconds: float


def reindex_store(
    store: Store,
    *,
    model: str,
    load_encoder: Callable[[], Encoder],
    judge: Judge | None = None,
    progress: Progress | None = None,
) -> ReindexReport:
    """Rebuild every vector for ``model`` (and its judge) from the text kept in SQLite."""
    started = time.perf_counter()
    texts = store.all_passage_texts()
    missing = sorted(store.missing_hashes(texts, model))
    dim = store.stored_dim(model) if texts and not missing else None
    vectors: dict[str, np.ndarray] = {}
    if dim is None:
        # Only load the model when something needs embedding: rebuilding a
        # lost cache from stored vectors takes no model at all.
        encoder = load_encoder()
        vectors = _embed(encoder, [(h, texts[h]) for h in missing], None, progress)
        dim = encoder.dim
    judged = 0
    judge_vectors = None
    if judge is not None:
        wholes = store.whole_texts()
        todo = sorted(store.missing_hashes(wholes, judge.model))
        judged = len(todo)
        batch = _embed(judge.load(), [(h, wholes[h]) for h in todo], None, progress) if todo else {}
        judge_vectors = JudgeVectors(judge.model, [batch])
    store.rebind_model(model, vectors, dim, judge_vectors)
    return ReindexReport(
        model=model,
        judge=judge.model if judge is not None else None,
        records=store.count(),
        embedded=len(missing),
        judge_embedded=judged,
        seconds=round(time.perf_counter() - started, 3),
    )


def _parse_all(files: list[Path], report: IngestReport) -> list[ParsedFile]:
    from kbsearch.parse import parse_file

    parsed = []
    for path in files:
        try:
            result = parse_file(path)
        except KbError as err:
            message = err.message + (f" ({err.hint})" if err.hint else "")
            report.refused.append(FileProblem(path=str(path), line=err.line, message=message))
            continue
        parsed.append(result)
        report.warnings += [f"{path}: {w}" for w in result.warnings]
    report.files = len(parsed)
    return parsed


def _owned(store: Store, parsed: list[ParsedFile], report: IngestReport) -> list[ParsedFile]:
    """The files whose ids are theirs to write; the others are refused (see ``ownership``)."""
    refused = ownership.clashes(store, parsed)
    for source, why in refused.items():
        report.refused.append(FileProblem(path=source, message=f"{why} ({ownership.HINT})"))
    kept = [p for p in parsed if p.source not in refused]
    report.files = len(kept)
    if refused and not kept:
        raise KbError(f"nothing could be ingested: {report.refused[-1].one_line()}")
    return kept


def _plan(store: Store, parsed: list[ParsedFile], report: IngestReport, prune: bool, folders: list[Path]) -> ChangeSet:
    changes = ChangeSet()
    for result in parsed:
        stored = store.stored_by_file(result.source)
        others = store.files_of_ids([r.id for r in result.records if r.id not in stored])
        for old, new in ownership.renames(result, stored, set(others)).items():
            changes.renames[old] = new
            stored[new] = stored.pop(old)
            report.warnings.append(f"{result.source}: record {old!r} is now {new!r}")
        for record in result.records:
            _plan_record(store, record, stored, changes, report)
            changes.files[record.id] = result.source
        if store.mentions_json(result.source) != [m.model_dump_json() for m in result.id_mentions]:
            changes.mentions[result.source] = result.id_mentions
        if prune:
            changes.deletes += [rid for rid in stored if rid not in {r.id for r in result.records}]
        report.records += len(result.records)
    if prune:
        changes.deletes += _vanished(store, folders, {p.source for p in parsed})
    report.removed = len(changes.deletes)
    return changes


def _plan_record(
    store: Store, record: Record, stored: dict[str, str], changes: ChangeSet, report: IngestReport
) -> None:
    if stored.get(record.id) == record.stored_json():
        report.unchanged += 1
        return
    changes.upserts.append(record)
    if record.id in stored or store.get(record.id) is not None:
        report.updated += 1
    else:
        report.added += 1


def _vanished(store: Store, folders: list[Path], parsed_sources: set[str]) -> list[str]:
    """Ids of records whose source file, inside an ingested folder, is gone."""
    gone: list[str] = []
    for file in store.files():
        path = Path(file)
        inside = any(path.is_relative_to(folder) for folder in folders)
        if inside and file not in parsed_sources and not path.exists():
            gone += list(store.stored_by_file(file))
    return gone


def _check_dim(encoder: Encoder, store: Store | None) -> None:
    if store is not None and store.dim is not None and store.count() and encoder.dim != store.dim:
        raise KbError(
            f"model {encoder.model_id!r} gives {encoder.dim}-d vectors but the index holds {store.dim}-d ones",
            hint=f"run 'kbsearch reindex --model {encoder.model_id}'",
        )


def _embed_batches(
    encoder: Encoder, items: list[tuple[str, str]], progress: Progress | None
) -> Iterator[dict[str, np.ndarray]]:
    for start in range(0, len(items), EMBED_BATCH):
        batch = items[start : start + EMBED_BATCH]
        encoded = encoder.encode([text for _, text in batch])
        if progress:
            progress(min(start + EMBED_BATCH, len(items)), len(items))
        yield {h: encoded[i] for i, (h, _) in enumerate(batch)}


def _embed(
    encoder: Encoder, items: list[tuple[str, str]], store: Store | None, progress: Progress | None
) -> dict[str, np.ndarray]:
    _check_dim(encoder, store)
    vectors: dict[str, np.ndarray] = {}
    for batch in _embed_batches(encoder, items, progress):
        vectors.update(batch)
    return vectors
