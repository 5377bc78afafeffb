"""The default screen: search as you type, results, the selected record."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.markup import escape
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Input, Select, Static

import kbsearch.tui.hits as hitview
from kbsearch.kb import KnowledgeBase, SearchFilter, SearchHit, SearchMode, SearchResponse, Stats
from kbsearch.records import Kind
from kbsearch.tui.filter_bar import FilterBar
from kbsearch.tui.footer import KbFooter
from kbsearch.tui.gateway import KbGateway
from kbsearch.tui.jobs import run_job, search_mode
from kbsearch.tui.literal import plain
from kbsearch.tui.record_detail import Found, RecordDetail, neighbours_job
from kbsearch.tui.results_table import ResultsTable
from kbsearch.tui.status_bar import StatusBar

DEBOUNCE = 0.15
"""Seconds of quiet typing before a query is embedded."""
RESULTS = 30
HINT = (
    "Type to search: words, a title, Chinese or English, or an arXiv id such as 2607.17715.\n"
    "Filters: ctrl+f.  Check a briefing: F3.  Audit duplicates: F4.  Help: F1."
)

EMPTY = (
    "No results: the index {index} holds no records yet.\n\n"
    "Add some with:  kbsearch ingest PATH… --index {index}\nthen press F5 to reload."
)


class SearchScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+l", "focus_query", "Query"),
        Binding("slash", "focus_query", "Query", show=False),
        Binding("ctrl+f", "focus_filters", "Filters"),
        Binding("ctrl+r", "clear_filters", "Clear filters"),
        # priority: from the query box too, whose own ctrl+d (delete right) would hide it
        Binding("ctrl+d", "focus_detail", "Detail", priority=True),
        Binding("escape", "clear_query", "Clear query", show=False),
        # Reaches the screen only from the query and the date inputs: the
        # table, the lists and the detail pane use the arrow keys themselves.
        Binding("down", "focus_results", "Results", show=False),
    ]

    class Found(Message):
        def __init__(self, serial: int, response: SearchResponse, generation: int) -> None:
            super().__init__()
            self.serial = serial
            self.response = response
            self.generation = generation

    class NeighboursFound(Message):
        def __init__(self, found: Found) -> None:
            super().__init__()
            self.found = found

    def __init__(self, gateway: KbGateway, *, show_timing: bool = True) -> None:
        super().__init__()
        self.gateway = gateway
        self.show_timing = show_timing
        self._serial = 0
        self._timer: Timer | None = None
        self._focus_on_results = False
        """Down or enter was pressed in the query before its results came."""
        self.words_only = False
        """The results on screen were found by the words alone (the model was loading)."""
        self.last_shown: tuple[str, float] | None = None
        """(query, perf_counter()) once its results have been painted: read by the latency bench."""

    def compose(self) -> ComposeResult:
        with Vertical(id="search-top"):
            yield Input(placeholder="search… (Chinese or English, or an arXiv id)", id="query")
            yield FilterBar(id="filters")
        with Horizontal(id="search-body"):
            with Vertical(id="results-pane"):
                yield Static(id="summary")
                yield ResultsTable(id="results")
            yield RecordDetail(id="detail")
        yield StatusBar()
        yield KbFooter()

    def on_mount(self) -> None:
        self.query_one(RecordDetail).show_message(HINT)
        self.watch(self.app, "stats", self._stats_changed)
        self.watch(self.app, "problem", self._problem_changed)
        self.watch(self.app, "warmed", self._warmed_changed, init=False)
        self.query_one("#query", Input).focus()

    # -- searching ---------------------------------------------------------

    @on(Input.Changed, "#query")
    @on(FilterBar.Changed)
    def _schedule(self) -> None:
        # Restarting the timer on every keystroke means only the last query
        # of a burst is embedded.
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE, self._dispatch)

    def _dispatch(self) -> None:
        self._timer = None
        self._serial += 1
        query = self.query_one("#query", Input).value.strip()
        problem = self.query_one(FilterBar).problem()
        if problem is not None and query:
            # No search, and no count of one without the dates: the summary says what to fix.
            self.workers.cancel_group(self, "search")
            self._show([], Text(f"No search: {problem}", style="bold red"))
            self.query_one(RecordDetail).show_message(
                Text("Fix or clear the dates (ctrl+r clears every filter).", style="dim")
            )
            return
        if not query:
            self.workers.cancel_group(self, "search")
            self._show([], Text(""))
            self.query_one(RecordDetail).show_message(HINT)
            return
        self.search_worker(self._serial, query, self.query_one(FilterBar).current())

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def search_worker(self, serial: int, query: str, flt: SearchFilter) -> None:
        def job(kb: KnowledgeBase) -> tuple[SearchResponse, int]:
            # The results are searched again by meaning once the model is loaded.
            # The generation (one row read) tells whether another process wrote meanwhile.
            return kb.search(query, RESULTS, flt, search_mode(kb)), kb.store.generation

        run_job(self, self.gateway, "search", job, lambda found: self.Found(serial, *found))

    def on_search_screen_found(self, message: Found) -> None:
        if message.serial != self._serial:  # a newer query or filter was dispatched since
            return
        stats, refresh = getattr(self.app, "stats", None), getattr(self.app, "action_refresh_stats", None)
        if stats is not None and refresh is not None and message.generation != stats.generation:
            refresh()  # another process wrote to the index: the status bar follows
        found = list(message.response.results)
        self.words_only = message.response.mode is SearchMode.lexical
        summary = hitview.summary(message.response, len(found), timing=self.show_timing)
        if self.words_only:
            summary.append("  ·  by the words only while the model loads", style="bold yellow")
        self._show(found, summary)
        if self._focus_on_results and found:
            self._focus_on_results = False
            self.query_one(ResultsTable).focus()
        if not found:
            self.query_one(RecordDetail).show_message(Text(self._why_nothing(), style="dim"))
        self.call_after_refresh(self._mark_shown, hitview.query_of(message.response))

    def _why_nothing(self) -> str:
        stats = getattr(self.app, "stats", None)
        if stats is not None and stats.records == 0:
            return EMPTY.format(index=getattr(self.app, "index_label", "DIR"))
        if self.query_one(FilterBar).current() != SearchFilter():
            return "No results. Loosen the filters (ctrl+r clears them) or try other words."
        return "No results. Try other words."

    def _mark_shown(self, query: str) -> None:
        self.last_shown = (query, time.perf_counter())

    def _show(self, found: list[SearchHit], summary: Text) -> None:
        self.query_one("#summary", Static).update(summary)
        self.query_one(ResultsTable).show(found)
        if found:
            self._select(found[0])

    # -- the selected record ----------------------------------------------

    @on(DataTable.RowHighlighted, "#results")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        hit = self.query_one(ResultsTable).item_at(event.cursor_row)
        if hit is not None:
            self._select(hit)

    @on(DataTable.RowSelected, "#results")
    def _selected(self) -> None:
        self.action_focus_detail()

    def _select(self, hit: SearchHit) -> None:
        detail = self.query_one(RecordDetail)
        if detail.record_id == hit.id:
            return
        detail.show_hit(hit)
        self.neighbours_worker(hit.id)

    @work(thread=True, exclusive=True, group="neighbours", exit_on_error=False)
    def neighbours_worker(self, record_id: str) -> None:
        job = neighbours_job(record_id)
        run_job(self, self.gateway, "find neighbours", job, self.NeighboursFound)

    def on_search_screen_neighbours_found(self, message: NeighboursFound) -> None:
        self.query_one(RecordDetail).show_neighbours(message.found)

    # -- index state -------------------------------------------------------

    def _warmed_changed(self, warmed: bool) -> None:
        if warmed and self.words_only and self.query_one("#query", Input).value.strip():
            self._dispatch()  # the same query again, by meaning too
        # The nearest records need no model (``similar`` reads stored vectors): not asked again.

    def _stats_changed(self, stats: Stats | None) -> None:
        if stats is not None:
            instances = [name for name in stats.by_instance if name != "-"]
            topics = [name for name in stats.by_topic if name != "-"]
            categories = [name for name in stats.by_category if name != "-"]
            self.query_one(FilterBar).set_choices(instances, topics, categories)

    def _problem_changed(self, problem: str | None) -> None:
        if problem:
            message = Text("The knowledge base could not be opened.\n\n", style="bold red")
            message.append_text(plain(problem, one_line=False))
            message.append("\n\nBuild one with:  kbsearch ingest PATH… --index DIR\nthen press F5 to reload.")
            self.query_one(RecordDetail).show_message(message)

    # -- actions -----------------------------------------------------------

    def action_focus_query(self) -> None:
        self.query_one("#query", Input).focus()

    @on(Input.Submitted, "#query")
    def _query_submitted(self) -> None:
        if self._timer is not None:  # enter need not wait out the typing pause
            self._timer.stop()
            self._dispatch()
        self.action_focus_results()

    def action_focus_results(self) -> None:
        """Into the results; when there are none yet, as soon as they arrive."""
        table = self.query_one(ResultsTable)
        if table.items:
            table.focus()
        else:
            self._focus_on_results = True

    def action_focus_filters(self) -> None:
        self.query_one("#kind", Select).focus()

    def action_focus_detail(self) -> None:
        self.query_one(RecordDetail).focus()

    def action_clear_filters(self) -> None:
        self.query_one(FilterBar).clear()

    def action_clear_query(self) -> None:
        self.query_one("#query", Input).value = ""
        self.action_focus_query()

    def set_filter(self, name: str, value: str | None) -> None:
        self.query_one(FilterBar).set_field(name, value)

    def palette_commands(self) -> Iterator[SystemCommand]:
        """One command per filter value, so filtering works from the palette alone."""
        stats = getattr(self.app, "stats", None)
        choices: list[tuple[str, list[str]]] = [("kind", [k.value for k in Kind])]
        if stats is not None:
            choices += [
                ("instance", [n for n in stats.by_instance if n != "-"]),
                ("topic", [n for n in stats.by_topic if n != "-"]),
                ("category", [n for n in stats.by_category if n != "-"]),
            ]
        for name, values in choices:
            for value in values:
                # palette titles are parsed as markup: the value is escaped
                yield SystemCommand(
                    f"Filter {name}: {escape(value)}",
                    f"Only records whose {name} is this",
                    lambda n=name, v=value: self.set_filter(n, v),
                )
        yield SystemCommand(
            "Filter section: contains …",
            "Type part of a section's name, such as §1.3 (any case, as --section)",
            lambda: self.query_one("#section", Input).focus(),
        )
        yield SystemCommand(
            "Filter dates: since / until",
            "Type a date range (YYYY-MM-DD)",
            lambda: self.query_one("#since", Input).focus(),
        )
