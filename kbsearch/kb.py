"""The facade the CLI and the TUI share: one knowledge base folder, one model.

Writers (ingest, reindex) hold a file lock on the folder, so two runs never
interleave their transactions; readers never take it.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock, Timeout
from pydantic import BaseModel

from kbsearch.embed import Encoder, load_encoder
from kbsearch.errors import KbError
from kbsearch.ingest import IngestReport, Progress, ReindexReport, ingest_paths, reindex_store
from kbsearch.models import ModelSpec, resolve_model
from kbsearch.records import Record
from kbsearch.schema import FORMAT_VERSION
from kbsearch.search import SearchMode, SearchResponse, search
from kbsearch.store import SearchFilter, Store

INDEX_ENV = "KBSEARCH_INDEX"
DEFAULT_INDEX = Path("index")
LOCK_NAME = ".writer.lock"
LOCK_TIMEOUT_ENV = "KBSEARCH_LOCK_TIMEOUT"


def index_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """--index, else $KBSEARCH_INDEX, else ./index."""
    chosen = explicit or os.environ.get(INDEX_ENV)
    return Path(chosen) if chosen else DEFAULT_INDEX


class Stats(BaseModel):
    index: str
    records: int
    by_kind: dict[str, int]
    by_instance: dict[str, int]
    by_topic: dict[str, int]
    model: str | None
    dim: int | None
    format_version: int
    generation: int
    last_ingest: str | None
    passages: int
    """Embedded passages (title, whole text, each claim) over all records."""
    vectors: int | None
    """Vectors in the search cache, from its manifest (None when it has none yet)."""


class ListedRecord(BaseModel):
    id: str
    kind: str
    instance: str | None
    date: dt.date | None
    title: str
    arxiv_ids: list[str]

    @classmethod
    def from_record(cls, record: Record) -> ListedRecord:
        return cls(id=record.id, kind=record.kind.value, instance=record.instance, date=record.date,
                   title=record.title, arxiv_ids=record.arxiv_ids)


class Listing(BaseModel):
    records: list[ListedRecord]
    total: int


class KnowledgeBase:
    """Opens the store for ``spec``'s model and loads the encoder only when needed."""

    def __init__(self, root: Path, spec: ModelSpec, *, create: bool = False,
                 encoder: Encoder | None = None, check_model: bool = True) -> None:
        self.root = root
        self.spec = spec
        self.store = Store.open(root, model=spec.name if check_model else None, create=create)
        self._encoder = encoder

    @classmethod
    def open(cls, index: str | os.PathLike[str] | None = None, model: str | None = None,
             *, create: bool = False, check_model: bool = True) -> KnowledgeBase:
        return cls(index_dir(index), resolve_model(model), create=create, check_model=check_model)

    @property
    def encoder(self) -> Encoder:
        if self._encoder is None:
            self._encoder = load_encoder(self.spec)
        return self._encoder

    def close(self) -> None:
        self.store.close()

    def ingest(self, paths: list[Path], *, prune: bool = False,
               progress: Progress | None = None, on_wait: Callable[[], None] | None = None) -> IngestReport:
        with self.writer_lock(on_wait):
            return ingest_paths(self.store, paths, model=self.spec.name,
                                load_encoder=lambda: self.encoder, prune=prune, progress=progress)

    def reindex(self, progress: Progress | None = None,
                on_wait: Callable[[], None] | None = None) -> ReindexReport:
        with self.writer_lock(on_wait):
            return reindex_store(self.store, model=self.spec.name,
                                 load_encoder=lambda: self.encoder, progress=progress)

    def search(self, query: str, k: int = 10, flt: SearchFilter | None = None,
               mode: SearchMode = SearchMode.hybrid) -> SearchResponse:
        if not query.strip():
            raise KbError("the query is empty", hint="type some words, a title or an arXiv id")
        # Lexical search needs no model, so it never loads one.
        encoder = None if mode is SearchMode.lexical else self.encoder
        return search(self.store, encoder, query, k, flt, mode)

    def show(self, record_id: str) -> Record:
        record = self.store.get(record_id)
        if record is None:
            raise KbError(f"no record with id {record_id!r}",
                          hint="ids are listed by 'kbsearch search --json'")
        return record

    def listing(self, flt: SearchFilter | None = None, limit: int | None = None) -> Listing:
        records: list[ListedRecord] = []
        for record in self.store.iter_records(flt):
            if limit is not None and len(records) >= limit:
                break
            records.append(ListedRecord.from_record(record))
        return Listing(records=records, total=self.store.count())

    def stats(self) -> Stats:
        store = self.store
        manifest = store.read_manifest()
        return Stats(index=str(self.root), records=store.count(), by_kind=store.counts_by_kind(),
                     by_instance=store.counts_by("instance"), by_topic=store.counts_by("topic"),
                     model=store.model, dim=store.dim, format_version=FORMAT_VERSION,
                     generation=store.generation, last_ingest=store.last_ingest,
                     passages=store.passage_count(), vectors=manifest.count if manifest else None)

    def writer_lock(self, on_wait: Callable[[], None] | None = None) -> _WriterLock:
        return _WriterLock(self.root / LOCK_NAME, on_wait)


class _WriterLock:
    """filelock's lock, with a message while waiting and a clear timeout error."""

    def __init__(self, path: Path, on_wait: Callable[[], None] | None) -> None:
        self.path = path
        self.on_wait = on_wait
        self.lock = FileLock(str(path))
        self.timeout = float(os.environ.get(LOCK_TIMEOUT_ENV, "600"))

    def __enter__(self) -> _WriterLock:
        try:
            self.lock.acquire(timeout=0)
        except Timeout:
            if self.on_wait:
                self.on_wait()
            try:
                self.lock.acquire(timeout=self.timeout)
            except Timeout as err:
                raise KbError(f"another kbsearch run has been writing to {self.path.parent} for "
                              f"{self.timeout:.0f}s",
                              hint=f"wait for it, or raise {LOCK_TIMEOUT_ENV}") from err
        return self

    def __exit__(self, *exc: object) -> None:
        self.lock.release()
