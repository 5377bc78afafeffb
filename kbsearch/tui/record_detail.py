"""The selected record: its facts, its text as markdown, and its nearest
records as ``kbsearch similar`` judges them (the same item first: the records
it repeats). Enter on one opens it."""

from __future__ import annotations

from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, OptionList, Static
from textual.widgets.option_list import Option

import kbsearch.tui.hits as hitview
from kbsearch.dedupe.results import Neighbours
from kbsearch.errors import KbError
from kbsearch.kb import KnowledgeBase, SearchHit
from kbsearch.records import Record
from kbsearch.tui.id_lines import IdStatic, fitted
from kbsearch.tui.item_detail import match_lines
from kbsearch.tui.literal import join, plain
from kbsearch.tui.messages import OpenRecord

NEIGHBOURS_K = 10
"""As many as ``kbsearch similar ID`` lists by default."""

Found = tuple[Record, Neighbours | str]
"""The stored record (its claims, relation and sources, which a search hit lacks) and its
nearest records as ``kbsearch similar`` judges them, or why they could not be judged."""


def neighbours_job(record_id: str) -> Callable[[KnowledgeBase], Found]:
    """The facade calls behind the detail pane's second look (run on a gateway thread):
    ``KnowledgeBase.similar``, whose records ``similar --json`` prints, same item first."""

    def job(kb: KnowledgeBase) -> Found:
        record = kb.show(record_id)
        try:
            return record, kb.similar(record.id, NEIGHBOURS_K)
        except KbError as err:  # the index's judge is not models.txt's: said in the pane, the record still shown
            return record, err.one_line()

    return job


def _parser() -> MarkdownIt:
    # html off: an HTML block in a record is shown as text, not interpreted.
    # Briefing points are one per line without list markers, and should stay
    # one per line rather than run together into a paragraph. "breaks" alone
    # did not do it: it changes how markdown-it renders HTML, while Textual
    # reads the tokens, where a line break is still a softbreak (a space).
    parser = MarkdownIt("gfm-like", {"html": False, "breaks": True})
    parser.core.ruler.push("hard_breaks", _hard_breaks)
    return parser


def _hard_breaks(state: StateCore) -> None:
    for token in state.tokens:
        for child in token.children or []:
            if child.type == "softbreak":
                child.type = "hardbreak"


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
        self._body = ""
        self._neighbours: list[tuple[Text, str]] = []  # each neighbour's lines and its id

    def compose(self) -> ComposeResult:
        yield IdStatic(id="record-head")
        yield Markdown(id="record-body", parser_factory=_parser, open_links=False)
        yield Static(id="record-neighbours-head")
        yield NeighbourList(id="record-neighbours")

    def show_message(self, message: Text | str) -> None:
        self.record_id = None
        self.query_one("#record-head", IdStatic).show(Text(message) if isinstance(message, str) else message)
        self._body = ""
        self.query_one("#record-body", Markdown).update("")
        self._neighbours_head(Text(""))
        self._neighbours = []
        self.query_one("#record-neighbours", OptionList).clear_options()

    def show_hit(self, hit: SearchHit | Record) -> None:
        """A search hit, or a stored record (an opened neighbour or audit row)."""
        self.record_id = hit.id
        lines = [hitview.title(hit)]
        lines += [join(Text(f"{label:>8} ", style="dim"), value) for label, value in hitview.facts(hit)]
        self.query_one("#record-head", IdStatic).show(join(*lines, sep="\n"))
        self._body = hitview.body(hit)
        self.query_one("#record-body", Markdown).update(self._body)
        self._neighbours_head(Text("looking for neighbours…", style="dim"))
        self._neighbours = []
        self.query_one("#record-neighbours", OptionList).clear_options()
        self.scroll_home(animate=False)

    def show_neighbours(self, found: Found) -> None:
        record, neighbours = found
        if record.id != self.record_id:  # the selection moved on meanwhile
            return
        body = hitview.body(record)  # as `kbsearch show` prints it: a search hit has its text only
        if body != self._body:
            self._body = body
            self.query_one("#record-body", Markdown).update(body)
        heading = Text("Nearest records, as kbsearch similar lists them", style="bold underline")
        matches = [] if isinstance(neighbours, str) else neighbours.matches
        if isinstance(neighbours, str):
            heading.append_text(join(Text("\n"), plain(neighbours, style="yellow")))
        elif matches:
            same = sum(match.same_item for match in matches)
            heading.append(f"  (≡ the same item: {same}, listed first; enter opens one)", style="dim")
        else:
            heading.append("\nnone: no other record is near it", style="dim")
        self._neighbours_head(heading)
        self._neighbours = [(join(*match_lines(match), sep="\n"), match.id) for match in matches]
        options = self.query_one("#record-neighbours", NeighbourList)
        self._list_neighbours(options)
        if options.has_focus:  # focused while they were being looked for
            options.highlight_first()

    def _list_neighbours(self, options: NeighbourList) -> None:
        """The neighbours' lines, each id broken only at a / or a # (``id_lines``) to the list's width."""
        # an option has a cell of padding each side
        highlighted, width = options.highlighted, options.scrollable_content_region.width - 2
        options.clear_options()
        options.add_options([Option(fitted(line, width), id=rid) for line, rid in self._neighbours])
        if highlighted is not None and highlighted < options.option_count:
            options.highlighted = highlighted

    def on_resize(self, event: events.Resize) -> None:
        if self._neighbours:
            self.call_after_refresh(self._list_neighbours, self.query_one("#record-neighbours", NeighbourList))

    def _neighbours_head(self, text: Text) -> None:
        self.query_one("#record-neighbours-head", Static).update(text)

    @on(OptionList.OptionSelected, "#record-neighbours")
    def _open(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.post_message(OpenRecord(event.option.id))
