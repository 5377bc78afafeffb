"""The facade the CLI, the TUI and the server share: one knowledge base folder, one model.

Writers hold a file lock on the folder, so two runs never interleave their transactions (a second
one waits, saying so, for $KBSEARCH_LOCK_TIMEOUT s). Readers never take it: each read runs in one snapshot."""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import kbsearch.runtime.timings as timings
from kbsearch.embed import Encoder, TokenEncoder, load_encoder, load_judge, load_token_encoder
from kbsearch.errors import KbError
from kbsearch.kb.first_accept import accept_judged, first_accept
from kbsearch.kb.judge_fill import on_demand
from kbsearch.kb.model_choice import embed_again, index_dir, record_weights, require_same_weights, spec_for_index
from kbsearch.kb.reading import find_record, listing, stats, unknown_filters
from kbsearch.kb.search_judge import judge_query
from kbsearch.kb.source_names import named_input
from kbsearch.kb.writer_lock import LOCK_NAME, WaitClock, WriterLock, require_same_index
from kbsearch.limits import active_limits
from kbsearch.models import ModelSpec, resolve_judge
from kbsearch.records import Record
from kbsearch.responses import Listing, Removal, Stats
from kbsearch.runtime.overlap import side_by_side
from kbsearch.search import SearchMode, SearchResponse, search
from kbsearch.store import IndexShare, SearchFilter, Store, require_models
from kbsearch.store.database import map_for_search, read_only_error, writable
from kbsearch.store.files import missing_folders, remove_folders, remove_if_empty
from kbsearch.store.reopen import current
from kbsearch.vector_index.choice import parse_vector_store

if TYPE_CHECKING:
    # Ingest, check, audit, calibrate and doctor load in the functions that run them.
    from kbsearch.dedupe.audit_results import AuditResult
    from kbsearch.dedupe.check_input import CheckInput
    from kbsearch.dedupe.config import DedupeConfig
    from kbsearch.dedupe.results import CheckResult, Explanation, Neighbours
    from kbsearch.ingest import IngestReport, Judge, Progress, ReindexReport
    from kbsearch.kb.doctor import DoctorReport


class KnowledgeBase:
    """Opens the store for ``spec``'s model and loads the encoder only when needed."""

    def __init__(
        self,
        root: Path,
        spec: ModelSpec,
        *,
        create: bool = False,
        encoder: Encoder | None = None,
        judge: Encoder | None = None,
        tokens: TokenEncoder | None = None,
        check_model: bool = True,
        lock_timeout: float | None = None,
        index_share: IndexShare | None = None,
    ) -> None:
        self.root = root
        self.lock_timeout = lock_timeout  # seconds a writer waits for the lock; None: $KBSEARCH_LOCK_TIMEOUT
        self._index_share = index_share
        self.spec, self._create, self._check_model = spec, create, check_model
        self._store: Store | None = None
        self._encoder = encoder
        self._judge = judge
        self._tokens = tokens  # given: a calibration records the alignment with any config
        self.judge_spec = resolve_judge(spec)  # the judge model (models.txt judge=), if the model names one

    @property
    def store(self) -> Store:  # opened on first use (a refused ingest creates none); again once rebuilt there
        return self._opened(create=self._create)

    def _opened(self, *, create: bool) -> Store:
        self._store = current(self._store, self.root)
        if self._store is None:
            with timings.phase("index open"):
                model = self.spec.name if self._check_model else None
                self._store = Store.open(self.root, model=model, create=create)
                if model is not None:  # a folder rewritten under the same name: stale vectors
                    require_same_weights(self._store, self.spec, self.judge_spec)
                self._store.judge_on_demand = on_demand(self.judge_spec, lambda: self.judge)  # before the fill wrote it
                share = self._index_share  # a server's threads share one per database file
                self._store.cache.shared = share.of(self._store.identity) if share is not None else None
        return self._store

    @property
    def notes(self) -> list[str]:
        return [] if self._store is None else self._store.notes

    @classmethod
    def open(
        cls,
        index: str | os.PathLike[str] | None = None,
        model: str | None = None,
        *,
        create: bool = False,
        check_model: bool = True,
    ) -> KnowledgeBase:
        with timings.phase("model registry"):  # models.txt, read and checked
            root = index_dir(index)  # no --model: the index's own model, when models.txt names it
            return cls(root, spec_for_index(root, model), create=create, check_model=check_model)

    @property
    def encoder(self) -> Encoder:
        if self._encoder is None:
            with timings.phase("model load"):
                self._encoder = load_encoder(self.spec)
        return self._encoder

    def model_ready(self) -> bool:
        """The model is loaded (or a shared one says so): a search by meaning will not wait for it."""
        return self._encoder is not None and bool(getattr(self._encoder, "ready", True))

    @property
    def judge(self) -> Encoder | None:
        """The judge model, loaded on first use; None when the model names none."""
        if self._judge is None and self.judge_spec is not None:
            with timings.phase("judge load"):
                self._judge = load_judge(self.judge_spec, self.spec.name)
        return self._judge

    def _judging_models(self, config: DedupeConfig) -> tuple[Encoder | None, TokenEncoder | None]:
        """The judge, and its token vectors when the config reads them."""
        if self._tokens is not None or not config.reads_tokens() or self.judge_spec is None:
            return self.judge, self._tokens
        with timings.phase("judge tokens load"):
            return self.judge, load_token_encoder(self.judge_spec)

    def _judging(self) -> Judge | None:
        """The judge as ingest needs it: its name, loaded only if some text lacks its vector."""
        from kbsearch.ingest import Judge

        return None if (spec := self.judge_spec) is None else Judge(spec.name, lambda: cast(Encoder, self.judge))

    def _require_models(self) -> None:  # check, audit, similar, explain, ingest: doctor asks the same
        require_models(self.store, self.spec.name, self.spec.judge)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ingest(
        self,
        paths: list[Path],
        *,
        prune: bool = False,
        progress: Progress | None = None,
        on_wait: Callable[[], None] | None = None,
        vectors: str | None = None,
        include_skipped: bool = False,
    ) -> IngestReport:
        """``vectors``: where a first write keeps the search vectors (``--vectors``; see ``VectorStore``);
        ``include_skipped``: store the items ``check --accept --skip-duplicates`` left out (``store.skips``)."""
        from kbsearch.ingest import IngestReport, ingest_parsed, read_inputs, refuse_taken, will_embed
        from kbsearch.kb.token_fill import after_ingest, due  # due: the judge's vectors are left to the fill

        started, wanted = time.perf_counter(), (parse_vector_store(vectors, self.root) if vectors else None)
        report = IngestReport(model=self.spec.name)
        parsed = read_inputs(paths, report)  # before the index is touched at all
        if (store := self.store if Store.exists(self.root) else None) is None and not any(p.count for p in parsed):
            return report  # briefings of a day with no news (report.notes): no index is made for them
        if writable(self.root):  # seconds of loading, done before the writer lock, not while holding it
            if store is not None:  # a file refused for another's id or as a copy, and the models, before any loads
                refuse_taken(store, store.ingest_ledger(), parsed, report, streams=False)
                self._require_models()
                if wanted:
                    store.require_vectors(wanted)
            use = self._encoder is None and will_embed(store, parsed, self.spec.name)
            spec = self.judge_spec if self._judge is None and not due(self.spec) else None
            judging = spec is not None and will_embed(store, parsed, spec.name, whole=True)
            imports = spec.runtime_modules if spec is not None and judging else ()
            side_by_side(lambda: use and self.encoder, lambda: judging and self.judge, "judge wait", imports)
        judge, load = self._judging(), lambda: self.encoder
        with self.writing(wait := WaitClock(on_wait)) as store:
            wait.stop()
            if wanted:
                store.require_vectors(wanted)
            ingest_parsed(
                store,
                parsed,
                report,
                paths,
                load_encoder=load,
                judge=judge,
                prune=prune,
                progress=progress,
                include_skipped=include_skipped,
                defer_judge=due(self.spec),
            )
            record_weights(store, self.spec, self.judge_spec)
        report.seconds, report.waited = wait.apart(time.perf_counter() - started)
        after_ingest(self.root, self.spec, report)
        return report

    def reindex(
        self, progress: Progress | None = None, on_wait: Callable[[], None] | None = None, force: bool = False
    ) -> ReindexReport:
        from kbsearch.ingest import reindex_store  # force: embed every text again (a folder's new weights)

        with self.writing(on_wait) as store:
            again, kept = embed_again(store, self.spec, self.judge_spec, force=force)
            report = reindex_store(
                store,
                model=self.spec.name,
                load_encoder=lambda: self.encoder,
                judge=self._judging(),
                progress=progress,
                again=again,
            )
            record_weights(store, self.spec, self.judge_spec)
            return report.model_copy(update={"again": again, "kept": kept})

    def check(
        self,
        source: str,
        *,
        stdin_text: str | None = None,
        on_wait: Callable[[], None] | None = None,
        **options: Any,
    ) -> CheckResult:
        """Check a file (or ``-`` with ``stdin_text``) against the knowledge base. ``options``:
        ``as_of``; ``accept`` stores the items when none is a DUPLICATE (``kbsearch.ingest.accepting``),
        ``skip_duplicates`` all but them; ``replace`` lets them overwrite another item's id; ``config``."""
        with timings.phase("imports"):
            from kbsearch.dedupe.check_input import read_check_input
        with timings.phase("read input"):
            read = read_check_input(source, stdin_text)
        return self._check_items(read, source, on_wait, **options)

    def check_text(
        self, text: str, *, name: str | None = None, input_name: str | None = None, **options: Any
    ) -> CheckResult:
        """Check file ``name``'s text (never opened: ``source_names``), else ``check -``'s; options: check's."""
        from kbsearch.dedupe.check_input import read_check_input

        read = read_check_input("-", text) if name is None else named_input(text, name, self)
        return self._check_items(read, input_name or name or "-", options.pop("on_wait", None), **options)

    def _check_items(
        self,
        read: CheckInput,
        input_name: str,
        on_wait: Callable[[], None] | None,
        as_of: dt.date | None = None,
        accept: bool = False,
        replace: bool = False,
        config: DedupeConfig | None = None,
        skip_duplicates: bool = False,
    ) -> CheckResult:
        with timings.phase("imports"):
            from kbsearch.dedupe.check import Checker
            from kbsearch.dedupe.results import CheckResult
        if read.note is not None:  # a day with no news: nothing to check, nor to store
            return CheckResult(input=input_name, model=self.spec.name, as_of=as_of, items=[], notes=[read.note])
        if accept:  # judged against the index there now, never against a removed one still open
            self._store = current(self._store, self.root)
        if accept and not Store.exists(self.root):  # a team's first day: the gate creates the index
            return first_accept(self, read, input_name, on_wait, (as_of, replace, config, skip_duplicates))
        self._require_models()
        with timings.phase("config"):
            config = config or self.dedupe_config()
        # The models load outside the snapshot (it can take seconds), the judge beside USE.
        imports = self.judge_spec.runtime_modules if self.judge_spec else ()
        judging = side_by_side(lambda: self.encoder, lambda: self._judging_models(config), "judge wait", imports)
        encoder, (judge, tokens) = judging
        with self.store.snapshot():
            seen = self.store.generation
            with timings.phase("index open"):
                _ = self.store.vector_index  # the FAISS cache, loaded here rather than by the first search
            with timings.phase("check"):
                checker = Checker(self.store, encoder, config, as_of, judge=judge, tokens=tokens)
                result = checker.check(read.items, file=read.file, input_name=input_name, mentions=read.mentions)
        result.warnings = read.warnings
        if accept:
            again = lambda: self._check_items(read, input_name, None, as_of, config=config)  # noqa: E731
            return accept_judged(self, result, read, on_wait, (replace, skip_duplicates), (seen, again))
        return result

    def audit(self, flt: SearchFilter | None = None, config: DedupeConfig | None = None) -> AuditResult:
        with timings.phase("imports"):
            from kbsearch.dedupe.audit import audit
        self._require_models()
        config = config or self.dedupe_config(claims=False)
        tokens = lambda: self._judging_models(config)[1]  # noqa: E731 (loaded at the first join or pair near the line)
        with self.store.snapshot():
            result = audit(self.store, self.spec.name, config, flt, phase=timings.laps("audit"), tokens=tokens)
            result.unknown_filters = unknown_filters(self.store, flt) if flt and not result.records else []
            return result

    def dedupe_config(self, path: str | None = None, claims: bool = True, **given: Any) -> DedupeConfig:
        """The config in ``path`` (``--config``), else the model's own; ``given``: a server caller's ``fields``
        and their file's ``name`` (``chosen_config``). Refused if a decision it needs was never fitted."""
        from kbsearch.dedupe.config import CHECK_NEEDS
        from kbsearch.dedupe.given_config import chosen_config

        return chosen_config(self.spec, path, CHECK_NEEDS[: 1 + claims], **given)

    def search(
        self, query: str, k: int = 10, flt: SearchFilter | None = None, mode: SearchMode = SearchMode.hybrid
    ) -> SearchResponse:
        query = active_limits().usable_query(query)  # too long, not text: refused; NUL: a space
        if not any(ch.isalnum() for ch in query):  # punctuation alone ("？？", '"') would match junk
            said = "has no word, number or id, only punctuation" if query.strip() else "is empty"
            raise KbError(f"the query {said}", hint="type some words, a title or an arXiv id")
        judge = judge_query(self, query, mode)  # a lexical search loads no model; the judge loads beside
        encoder = None if mode is SearchMode.lexical else self.encoder
        map_for_search(self.store.db)
        with self.store.snapshot(), timings.phase("search"):
            response = search(self.store, encoder, query, k, flt, mode, judge=judge)
            if not response.results:
                response.unknown_filters = unknown_filters(self.store, response.filters)
                if not (response.unknown_filters or response.missing_ids):  # the query found none that pass
                    response.matched = self.store.count(response.filters) or None
            return response

    def show(self, record_id: str) -> Record:
        """The record with this id, or the one record whose id starts with it."""
        return find_record(self.store, record_id)

    def similar(self, record_id: str, k: int = 10, flt: SearchFilter | None = None, **given: Any) -> Neighbours:
        """The records nearest to a stored one, each judged as ``check`` would (by ``config``, else the model's)."""
        from kbsearch.dedupe.related import neighbours

        self._require_models()
        config = given.get("config") or self.dedupe_config(claims=False)
        with self.store.snapshot():
            return neighbours(self.store, record_id, k, flt or SearchFilter(), config)

    def explain(self, a: str, b: str, config: DedupeConfig | None = None, **options: Any) -> Explanation:
        """Why two stored records are, or are not, the same item; ``options``: ``as_of`` (as a check that
        day read it), ``claim`` (N: why check calls A's claim N known or new), ``kb.explaining``."""
        from kbsearch.kb.explaining import explain

        return explain(self, a, b, config, **options)

    def remove(self, record_ids: list[str], on_wait: Callable[[], None] | None = None) -> Removal:
        """Delete records and their vectors in one transaction; an unknown id changes nothing."""
        from kbsearch.ingest import remove_records

        with self.writing(on_wait) as store:
            return remove_records(store, list(dict.fromkeys(record_ids)), self.spec.name)

    def listing(self, flt: SearchFilter | None = None, limit: int | None = None) -> Listing:
        return listing(self.store, flt, limit)

    def stats(self) -> Stats:
        return stats(self.store, self.root)

    @contextmanager
    def writing(self, on_wait: Callable[[], None] | None = None, *, create: bool = False) -> Iterator[Store]:
        """The store, for one writer at a time: every command that changes the index comes here.
        ``create``: make the index if there is none, as a KnowledgeBase opened to create does."""
        create = create or self._create
        if not writable(self.root):
            raise read_only_error(self.root)
        require_same_index(self._store, self.root)  # before anything is made where the index was
        if not create:
            _ = self.store  # "no index at …" before anything is created
        first, made_folders = not Store.exists(self.root), missing_folders(self.root)
        made_lock = not (self.root / LOCK_NAME).exists()
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise KbError(f"cannot create the index folder: {err.strerror}", path=str(self.root)) from err
        undone = False
        try:
            with WriterLock(self.root / LOCK_NAME, on_wait, self.lock_timeout):
                if self._store is not None and self._store.read_only:
                    raise read_only_error(self.root)
                require_same_index(self._store, self.root)  # removed while this waited for the lock
                try:
                    yield self._opened(create=create)
                except BaseException:
                    undone = first and remove_if_empty(self._store, self.root)
                    self._store = None if undone else self._store
                    raise
                require_same_index(self._store, self.root)  # removed during the write: never reported done
        finally:
            if undone and made_lock:
                (self.root / LOCK_NAME).unlink(missing_ok=True)
            if undone:
                remove_folders(made_folders)


def examine(index: str | os.PathLike[str] | None = None, model: str | None = None) -> DoctorReport:
    """``kbsearch doctor``: every check of the index, ``model``'s binding included; each naming its fix."""
    from kbsearch.kb.doctor import examine as run_checks

    return run_checks(index_dir(index), model)
