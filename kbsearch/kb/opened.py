"""What a ``KnowledgeBase`` opens on first use, and its one way to write.

The store is opened when a command first reads it (a refused ingest creates none) and again once the
folder was rebuilt under it; the model and the judge load when a command first needs them. ``writing``
hands the store to one writer at a time, under the folder's lock; the commands live in ``kb.facade``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, cast

import kbsearch.runtime.timings as timings
from kbsearch.embed import Encoder, TokenEncoder, load_encoder, load_judge, load_token_encoder
from kbsearch.errors import KbError
from kbsearch.kb.judge_fill import on_demand
from kbsearch.kb.model_choice import require_same_weights
from kbsearch.kb.writer_lock import LOCK_NAME, WriterLock, require_same_index
from kbsearch.models import ModelSpec, resolve_judge
from kbsearch.store import IndexShare, Store, require_models
from kbsearch.store.database import read_only_error, writable
from kbsearch.store.files import missing_folders, remove_folders, remove_if_empty
from kbsearch.store.reopen import current

if TYPE_CHECKING:
    from kbsearch.dedupe.config import DedupeConfig
    from kbsearch.ingest import Judge


class Opened:
    """The index folder and ``spec``'s models, each opened or loaded only when needed."""

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

    def judging_models(self, config: DedupeConfig) -> tuple[Encoder | None, TokenEncoder | None]:
        """The judge, and its token encoder when ``config`` reads token vectors (each None when there
        is none): what a ``Checker`` judges with, loaded on first use."""
        if self._tokens is not None or not config.reads_tokens() or self.judge_spec is None:
            return self.judge, self._tokens
        with timings.phase("judge tokens load"):
            return self.judge, load_token_encoder(self.judge_spec)

    def _judging(self) -> Judge | None:
        """The judge as ingest needs it: its name, loaded only if some text lacks its vector."""
        from kbsearch.ingest import Judge

        return None if (spec := self.judge_spec) is None else Judge(spec.name, lambda: cast(Encoder, self.judge))

    def require_models(self) -> None:
        """Refuse an index whose vectors another model or judge wrote: check, audit, similar, explain
        and ingest ask it before they load a model, and doctor asks the same."""
        require_models(self.store, self.spec.name, self.spec.judge)

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
