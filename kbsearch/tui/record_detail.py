"""The selected record: its facts, its full text as markdown, and its nearest
neighbours from another instance or day (the records it may repeat)."""

from __future__ import annotations

from markdown_it import MarkdownIt
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from kbsearch.kb import SearchHit
from kbsearch.tui import hits as hitview
from kbsearch.tui.literal import join


def _parser() -> MarkdownIt:
    # html off: an HTML block in a record is shown as text, not interpreted.
    # breaks on: briefing points are one per line without list markers, and
    # should stay one per line rather than run together into a paragraph.
    return MarkdownIt("gfm-like", {"html": False, "breaks": True})


class RecordDetail(VerticalScroll, can_focus=True):
    """Call ``show_hit`` on selection and ``show_neighbours`` when they arrive."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.record_id: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="record-head")
        yield Markdown(id="record-body", parser_factory=_parser, open_links=False)
        yield Static(id="record-neighbours")

    def show_message(self, message: Text | str) -> None:
        self.record_id = None
        self.query_one("#record-head", Static).update(Text(message) if isinstance(message, str) else message)
        self.query_one("#record-body", Markdown).update("")
        self.query_one("#record-neighbours", Static).update("")

    def show_hit(self, hit: SearchHit) -> None:
        self.record_id = hit.id
        lines = [hitview.title(hit)]
        lines += [join(Text(f"{label:>8} ", style="dim"), value) for label, value in hitview.facts(hit)]
        self.query_one("#record-head", Static).update(join(*lines, sep="\n"))
        self.query_one("#record-body", Markdown).update(hitview.body(hit))
        self.query_one("#record-neighbours", Static).update(Text("looking for neighbours…", style="dim"))
        self.scroll_home(animate=False)

    def show_neighbours(self, record_id: str, lines: list[Text]) -> None:
        if record_id != self.record_id:  # the selection moved on meanwhile
            return
        heading = Text("Nearest from another instance or day", style="bold underline")
        body = lines or [Text("none: nothing close from another instance or day", style="dim")]
        self.query_one("#record-neighbours", Static).update(join(heading, *body, sep="\n"))
