"""The facade the CLI, the TUI and the server share: one knowledge base folder, one model.

Writers hold a file lock on the folder, so two runs never interleave their transactions (a second
one waits, saying so, for $KBSEARCH_LOCK_TIMEOUT s). Readers never take it: each read runs in one snapshot."""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import kbsearch.runtime.timings as timings
from kbsearch.errors import KbError
from kbsearch.kb.first_accept import accept_judged, first_accept
from kbsearch.kb.model_choice import embed_again, index_dir, record_weights, spec_for_index
from kbsearch.kb.opened import Opened
from kbsearch.kb.reading import find_record, listing, stats, unknown_filters
from kbsearch.kb.search_judge import judge_query
from kbsearch.kb.source_names import named_input
from kbsearch.kb.writer_lock import WaitClock
from kbsearch.limits import active_limits
from kbsearch.records import Record
from kbsearch.responses import Listing, Removal, Stats
from kbsearch.runtime.overlap import side_by_side
from kbsearch.search import SearchMode, SearchResponse, search
from kbsearch.store import SearchFilter, Store
from kbsearch.store.database import map_for_search, writable
from kbsearch.store.reopen import current
from kbsearch.vector_index.choice import parse_vector_store

if TYPE_CHECKING:
    # Ingest, check, audit, calibrate and doctor load in the functions that run them.
    from kbsearch.dedupe.audit_results import AuditResult
    from kbsearch.dedupe.check_input import CheckInput
    from kbsearch.dedupe.config import DedupeConfig
    from kbsearch.dedupe.results import CheckResult, Explanation, Neighbours
    from kbsearch.ingest import IngestReport, Progress, ReindexReport
    from kbsearch.kb.doctor import DoctorReport


class KnowledgeBase(Opened):
    """The commands, over what ``Opened`` opens: the store for ``spec``'s model, its models when needed."""

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
                self.require_models()
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
        self.require_models()
        with timings.phase("config"):
            config = config or self.dedupe_config()
        # The models load outside the snapshot (it can take seconds), the judge beside USE.
        imports = self.judge_spec.runtime_modules if self.judge_spec else ()
        judging = side_by_side(lambda: self.encoder, lambda: self.judging_models(config), "judge wait", imports)
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
            from kbsearch.kb.explaining_check import check_of
        self.require_models()
        config = config or self.dedupe_config(claims=False)
        tokens = lambda: self.judging_models(config)[1]  # noqa: E731 (loaded at the first join or pair near the line)
        with self.store.snapshot():
            # A pair across languages is decided as check decided the later record on its day.
            checker = lambda: check_of(self, config, None)  # noqa: E731
            laps = timings.laps("audit")
            result = audit(self.store, self.spec.name, config, flt, phase=laps, tokens=tokens, checker=checker)
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

        self.require_models()
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


def examine(index: str | os.PathLike[str] | None = None, model: str | None = None) -> DoctorReport:
    """``kbsearch doctor``: every check of the index, ``model``'s binding included; each naming its fix."""
    from kbsearch.kb.doctor import examine as run_checks

    return run_checks(index_dir(index), model)
