"""The kbsearch TUI: search, check and audit screens over one knowledge base.

The app only shows the facade's result objects (``SearchResponse``,
``CheckResult``, ``AuditResult``, ``Stats``); all knowledge-base work runs in
thread workers through ``KbGateway``, so the UI never waits on a model or a
disk.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import ClassVar

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen

from kbsearch.kb import Encoder, KnowledgeBase, Stats, read_ahead
from kbsearch.kb.search_judge import judge_to_warm
from kbsearch.tui.audit_screen import AuditScreen
from kbsearch.tui.check_screen import CheckScreen
from kbsearch.tui.commands import binding_commands, own_bindings
from kbsearch.tui.gateway import KbGateway
from kbsearch.tui.help_screen import HelpScreen
from kbsearch.tui.jobs import JobFailed, run_job
from kbsearch.tui.messages import OpenRecord
from kbsearch.tui.record_screen import RecordScreen
from kbsearch.tui.search_screen import SearchScreen

OPEN = "open the index"


class StatsLoaded(Message):
    def __init__(self, stats: Stats) -> None:
        super().__init__()
        self.stats = stats


class Warmed(Message):
    """One model (the main one, or the judge a hybrid search weighs) is loaded and warm."""


def _open_cache(kb: KnowledgeBase) -> tuple[Encoder, Encoder | None]:
    read_ahead(kb.root)  # a session's searches then read memory, not the disk
    kb.store.vector_index  # noqa: B018 - the property loads the FAISS cache
    # Shared encoders: handing them out loads neither model.
    return kb.encoder, judge_to_warm(kb)


def _warm(encoder: Encoder) -> None:
    # Loading a model and its first encode call take seconds. They run on a
    # thread of their own, not on the gateway's: a keystroke meanwhile is
    # answered by the words alone (see SearchScreen), never queued behind them.
    encoder.encode(["warm up 预热"])


class KbApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "kbsearch"
    DEFAULT_MODE = "search"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help"),
        Binding("question_mark", "help", "Help", show=False),
        Binding("f2", "switch_mode('search')", "Search"),
        Binding("f3", "switch_mode('check')", "Check"),
        Binding("f4", "switch_mode('audit')", "Audit"),
        Binding("f5", "reload", "Reload index"),
        Binding("ctrl+q", "quit", "Quit"),
    ]

    stats: var[Stats | None] = var(None)
    """The index's stats, shown by every status bar; None until loaded."""
    problem: var[str | None] = var(None)
    """Why the index could not be opened, if it could not."""
    warmed: var[bool] = var(False)
    """True once the models (the main one, and the judge a hybrid search weighs) and the vector
    cache are loaded: searches are by meaning and words."""

    def __init__(self, gateway: KbGateway, batch: KbGateway, *, show_timing: bool = True) -> None:
        """``gateway`` serves searches and stats; ``batch`` serves checks and audits."""
        super().__init__()
        self._cold = 0
        """How many of the models being loaded are not warm yet."""
        self.gateway = gateway
        self.batch = batch
        self.index_label = gateway.label
        self.add_mode("search", lambda: SearchScreen(gateway, show_timing=show_timing))
        self.add_mode("check", lambda: CheckScreen(batch))
        self.add_mode("audit", lambda: AuditScreen(batch))

    def on_mount(self) -> None:
        self.action_reload()

    def on_unmount(self) -> None:
        self.gateway.close()
        self.batch.close()

    # -- index state -------------------------------------------------------

    def action_reload(self) -> None:
        # Each gateway's connection keeps the vector cache it loaded: reopening
        # shows what an accept on the other gateway, or an ingest, wrote.
        self.gateway.reset()
        self.batch.reset()
        self.stats_worker()

    def action_refresh_stats(self) -> None:
        """The status bar's figures again, without reopening the index (a search saw a new generation)."""
        self.stats_worker()

    @work(thread=True, exclusive=True, group="stats", exit_on_error=False)
    def stats_worker(self) -> None:
        run_job(self, self.gateway, OPEN, lambda kb: kb.stats(), StatsLoaded)

    def on_stats_loaded(self, message: StatsLoaded) -> None:
        self.problem = None
        self.stats = message.stats
        self.warm_worker()  # after a reload too: the reopened index loads its vector cache again

    @work(thread=True, exclusive=True, group="warm", exit_on_error=False)
    def warm_worker(self) -> None:
        run_job(self, self.gateway, "load the model", _open_cache, self.ModelHandle)

    class ModelHandle(Message):
        def __init__(self, models: tuple[Encoder, Encoder | None]) -> None:
            super().__init__()
            self.encoder, self.judge = models

    def on_kb_app_model_handle(self, message: ModelHandle) -> None:
        # Both load at once, each on a thread of its own (mostly outside the GIL): the first
        # search by meaning waits for neither, and until both are warm searches go by the words.
        cold = {"model": message.encoder, "judge": message.judge}
        self._cold = sum(model is not None for model in cold.values())
        for what, model in cold.items():
            if model is not None:
                self.run_worker(
                    lambda m=model, w=what: self._load(m, w),
                    thread=True,
                    exclusive=True,
                    group=f"load-{what}",
                    exit_on_error=False,
                )

    def _load(self, encoder: Encoder, what: str) -> None:
        try:
            _warm(encoder)
        except Exception as err:  # shown like any failed job; searches go on by the words
            self.post_message(JobFailed(err, f"load the {what}"))
            return
        self.post_message(Warmed())

    def on_warmed(self) -> None:
        self._cold -= 1
        if self._cold <= 0:
            self.warmed = True

    def on_job_failed(self, message: JobFailed) -> None:
        text = message.error_text()
        if message.what == OPEN:
            self.problem = text
        elif text == self.problem:
            return  # a search of the index that could not be opened: said once, and on screen
        # markup=False: the message may quote record text or a path
        self.notify(text, title=f"Could not {message.what}", severity="error", timeout=10, markup=False)

    # -- help and palette --------------------------------------------------

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        sections = [("Everywhere", own_bindings(self))]
        for name, screen_type in (("Search", SearchScreen), ("Check", CheckScreen), ("Audit", AuditScreen)):
            described = [b for b in screen_type.BINDINGS if isinstance(b, Binding) and b.description]
            sections.append((name, described))
        keys = {b.key: self.key_label(b) for _, bindings in sections for b in bindings}
        self.push_screen(HelpScreen(sections, keys))

    def key_label(self, binding: Binding) -> str:
        """``n,escape`` → ``n / esc``, each key as the footer shows it."""
        keys = binding.key.split(",")
        return " / ".join(self.get_key_display(dataclasses.replace(binding, key=k.strip())) for k in keys)

    def on_open_record(self, message: OpenRecord) -> None:
        self.push_screen(RecordScreen(self.gateway, message.record_id))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        textual_own = list(super().get_system_commands(screen))
        yield from textual_own
        # Textual lists Quit (and others) itself: a binding of ours to the same title is left out.
        titles = {command.title for command in textual_own}
        yield from (c for c in binding_commands(self, [screen, self]) if c.title not in titles)
        extra = getattr(screen, "palette_commands", None)
        if extra is not None:
            yield from extra()
