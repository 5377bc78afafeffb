"""The selected record: its facts, its text as markdown, and its nearest
neighbours from another instance or day (the records it may repeat). Enter
on a neighbour opens it."""

from __future__ import annotations

from collections.abc import Callable

from markdown_it import MarkdownIt
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, OptionList, Static
from textual.widgets.option_list import Option

import kbsearch.tui.hits as hitview
from kbsearch.kb import KnowledgeBase, SearchFilter, SearchHit
from kbsearch.records import Record
from kbsearch.tui.jobs import search_mode
from kbsearch.tui.literal import join
from kbsearch.tui.messages import OpenRecord

NEIGHBOURS_K = 12

Neighbour = tuple[Text, str]
"""A nearest record as shown (its line) and its id."""


def neighbours_job(record_id: str) -> Callable[[KnowledgeBase], list[Neighbour]]:
    """The facade call behind the neighbour list (run on a gateway thread)."""

    def job(kb: KnowledgeBase) -> list[Neighbour]:
        record = kb.show(record_id)
        flt = SearchFilter(exclude_ids=[record_id])
        response = kb.search(hitview.neighbour_query(record), NEIGHBOURS_K, flt, search_mode(kb))
        return [(hitview.neighbour_line(hit, record), hit.id) for hit in hitview.neighbours(record, response)]

    return job


def _parser() -> MarkdownIt:
    # html off: an HTML block in a record is shown as text, not interpreted.
    # breaks on: briefing points are one per line without list markers, and
    # should stay one per line rather than run together into a paragraph.
    return MarkdownIt("gfm-like", {"html": False, "breaks": True})


class NeighbourList(OptionList):
    """Highlights its first record when it has the focus: enter then opens one at once
    (a list with nothing highlighted ignored enter until an arrow key was pressed)."""

    def on_focus(self) -> None:
        self.highlight_first()

    def highlight_first(self) -> None:
        if self.highlighted is None and self.option_count:
            self.highlighted = 0


class RecordDetail(VerticalScroll, can_focus=True):
    """Call ``show_hit`` (or ``show_record``) on selection and ``show_neighbours`` when they arrive."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.record_id: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="record-head")
        yield Markdown(id="record-body", parser_factory=_parser, open_links=False)
        yield Static(id="record-neighbours-head")
        yield NeighbourList(id="record-neighbours")

    def show_message(self, message: Text | str) -> None:
        self.record_id = None
        self.query_one("#record-head", Static).update(Text(message) if isinstance(message, str) else message)
        self.query_one("#record-body", Markdown).update("")
        self._neighbours_head(Text(""))
        self.query_one("#record-neighbours", OptionList).clear_options()

    def show_hit(self, hit: SearchHit | Record) -> None:
        """A search hit, or a stored record (an opened neighbour or audit row)."""
        self.record_id = hit.id
        lines = [hitview.title(hit)]
        lines += [join(Text(f"{label:>8} ", style="dim"), value) for label, value in hitview.facts(hit)]
        self.query_one("#record-head", Static).update(join(*lines, sep="\n"))
        self.query_one("#record-body", Markdown).update(hitview.body(hit))
        self._neighbours_head(Text("looking for neighbours…", style="dim"))
        self.query_one("#record-neighbours", OptionList).clear_options()
        self.scroll_home(animate=False)

    def show_neighbours(self, record_id: str, found: list[Neighbour]) -> None:
        if record_id != self.record_id:  # the selection moved on meanwhile
            return
        heading = Text("Nearest from another instance or day", style="bold underline")
        if found:
            heading.append("  (enter opens one)", style="dim")
        else:
            heading.append("\nnone: nothing close from another instance or day", style="dim")
        self._neighbours_head(heading)
        options = self.query_one("#record-neighbours", NeighbourList)
        options.clear_options()
        options.add_options([Option(line, id=rid) for line, rid in found])
        if options.has_focus:  # focused while they were being looked for
            options.highlight_first()

    def _neighbours_head(self, text: Text) -> None:
        self.query_one("#record-neighbours-head", Static).update(text)

    @on(OptionList.OptionSelected, "#record-neighbours")
    def _open(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.post_message(OpenRecord(event.option.id))
