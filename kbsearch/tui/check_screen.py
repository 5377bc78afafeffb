"""Check an incoming briefing before accepting it: a verdict per item, with evidence."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static
from textual.widgets.input import Selection

from kbsearch.dedupe.results import CheckResult, Verdict
from kbsearch.kb import KnowledgeBase
from kbsearch.render import counted
from kbsearch.render.dedupe import accepted_parts, edits_text
from kbsearch.tui.confirm_screen import ConfirmScreen
from kbsearch.tui.file_picker import FilePicker
from kbsearch.tui.filter_bar import parse_day
from kbsearch.tui.footer import KbFooter
from kbsearch.tui.gateway import KbGateway
from kbsearch.tui.item_detail import ItemDetail, flag_line
from kbsearch.tui.jobs import JobFailed, run_job
from kbsearch.tui.literal import VERDICT_STYLE, join, plain
from kbsearch.tui.paste_screen import PasteScreen
from kbsearch.tui.status_bar import StatusBar
from kbsearch.tui.verdict_table import VerdictTable

HINT = (
    "Type a briefing's path and press enter, browse with ctrl+o, or paste text with ctrl+t.\n"
    "Each item gets NEW, UPDATE or DUPLICATE with its evidence.\n"
    "ctrl+a accepts all the items, or none when any is a DUPLICATE; ctrl+s all but the DUPLICATEs."
)


ACCEPT = "Accept all items (none if any is a DUPLICATE)"
"""All or nothing, as 'kbsearch check --accept': the label must not promise a partial accept."""
ACCEPT_SKIPPING = "Accept all but the DUPLICATEs (they are left out, and remembered)"
"""'kbsearch check --accept --skip-duplicates': a later 'kbsearch ingest' leaves them out too."""


@dataclass(frozen=True)
class CheckRequest:
    """What was checked, kept so that accepting re-runs exactly the same check."""

    source: str
    """A file path, or ``-`` for pasted text."""
    stdin_text: str | None
    as_of: dt.date | None
    accept: bool = False
    skip_duplicates: bool = False
    """With ``accept``: store all but the DUPLICATEs (ctrl+s)."""


class CheckScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "browse", "Open file"),
        Binding("ctrl+t", "paste", "Paste text"),
        # Never a letter: typing the next path right after a check must not write to the
        # index. priority: the path box's own ctrl+a (home) would hide it there.
        Binding("ctrl+a", "accept", ACCEPT, priority=True),
        # Out of the footer (full at 80 columns): ctrl+a's refusal names it, as do Help and the palette.
        Binding("ctrl+s", "accept_skipping", ACCEPT_SKIPPING, show=False, priority=True),
        Binding("ctrl+r", "recheck", "Check again"),
        Binding("ctrl+l", "focus_path", "Path", show=False),
        # Reaches the screen only from the path and date boxes: the table and the pane use it.
        Binding("down", "focus_items", "Items (from the path)", show=False),
    ]

    class Checked(Message):
        def __init__(self, request: CheckRequest, result: CheckResult) -> None:
            super().__init__()
            self.request = request
            self.result = result

    def __init__(self, gateway: KbGateway) -> None:
        super().__init__()
        self.gateway = gateway
        self.request: CheckRequest | None = None
        self.result: CheckResult | None = None
        self.last_source: str | None = None
        """The source of the last check started, failed or not: typing replaces it."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="check-source"):
            yield Input(placeholder="briefing, paper card or JSONL file… (enter to check)", id="path")
            yield Input(placeholder="as of YYYY-MM-DD", id="as-of", restrict=r"[0-9-]*", max_length=10)
        yield Static(Text(HINT, style="dim"), id="check-summary")
        with Horizontal(id="check-body"):
            with Vertical(id="items-pane"):
                yield VerdictTable(id="items")
            yield ItemDetail(id="item")
        yield StatusBar()
        yield KbFooter()

    def on_mount(self) -> None:
        self.query_one("#path", Input).focus()

    # -- starting a check --------------------------------------------------

    @on(Input.Submitted)
    def _submitted(self) -> None:
        path = self.query_one("#path", Input).value.strip()
        if not path:
            self.notify("Type a file path first, or paste text with ctrl+t.", severity="warning")
            return
        self.start(path, None)

    def start(self, source: str, stdin_text: str | None) -> None:
        as_of_text = self.query_one("#as-of", Input).value.strip()
        as_of = parse_day(as_of_text)
        if as_of_text and as_of is None:
            self.notify(f"'as of' must be a date like 2026-09-19, not {as_of_text!r}", severity="error", markup=False)
            return
        self._run(CheckRequest(source, stdin_text, as_of))

    def _run(self, request: CheckRequest) -> None:
        label = "pasted text" if request.source == "-" else request.source
        verb = "Checking and accepting" if request.accept else "Checking"
        self.last_source = request.source
        self.query_one("#check-summary", Static).update(join(Text(f"{verb} "), plain(label), Text("…")))
        self.check_worker(request)

    @work(thread=True, exclusive=True, group="check", exit_on_error=False)
    def check_worker(self, request: CheckRequest) -> None:
        def job(kb: KnowledgeBase) -> CheckResult:
            # accept=True is the same call `kbsearch check --accept` makes
            return kb.check(
                request.source,
                as_of=request.as_of,
                accept=request.accept,
                skip_duplicates=request.accept and request.skip_duplicates,
                stdin_text=request.stdin_text,
                on_wait=self._say_waiting,
            )

        run_job(self, self.gateway, "check", job, lambda result: self.Checked(request, result))

    def _say_waiting(self) -> None:
        message = "Another kbsearch run is writing to this index; waiting for it…"
        self.app.call_from_thread(self.notify, message, markup=False)

    # -- showing the result -----------------------------------------------

    def on_check_screen_checked(self, message: Checked) -> None:
        self.request, self.result = message.request, message.result
        table = self.query_one(VerdictTable)
        table.show(message.result.items)
        self.query_one("#check-summary", Static).update(summary(message.result))
        self.query_one(ItemDetail).show_item(message.result.items[0] if message.result.items else None)
        self._ready_for_the_next_path()
        if message.request.accept and message.result.accept_refused:
            self.notify(message.result.accept_refused, severity="warning", markup=False)
        elif message.request.accept:
            count, skipped = len(message.result.accepted), [s.id for s in message.result.skipped]
            left_out = (
                f" Skipped {counted(len(skipped), 'DUPLICATE')} ({', '.join(skipped)}): remembered, so "
                "'kbsearch ingest' of the file leaves them out too."
                if skipped
                else ""
            )
            self.notify(f"Accepted {count} item{'s' * (count != 1)} into the index.{left_out}", markup=False)
            refresh = getattr(self.app, "action_reload", None)
            if refresh is not None:
                refresh()

    def _ready_for_the_next_path(self) -> None:
        """The focus stays where the user types (a result that took it away sent the letters
        of the next path to the screen's keys). The path just checked is selected, so that
        typing replaces it, unless the user has typed since; after a failed check too."""
        path = self.query_one("#path", Input)
        if self.focused is path and self.last_source is not None and path.value.strip() == self.last_source:
            path.selection = Selection(0, len(path.value))

    def on_key(self, event: events.Key) -> None:
        """A printable key typed in the table or the pane, where it has no binding, goes to the
        path box: it replaces the path just checked, or goes on with one being typed."""
        if not event.is_printable or event.character is None or isinstance(self.focused, Input):
            return
        if event.key in self.active_bindings:
            return  # '?' still opens the help
        event.stop()
        event.prevent_default()
        path = self.query_one("#path", Input)
        typed = event.character if path.value.strip() == self.last_source else path.value + event.character
        self.set_focus(path)  # posts its Focus now (which selects the whole path) ...
        path.call_later(self._type_into, path, typed)  # ... so this runs after it, before the next key

    @staticmethod
    def _type_into(path: Input, value: str) -> None:
        path.value = value
        path.cursor_position = len(value)

    def on_job_failed(self, message: JobFailed) -> None:
        """A failed check leaves no earlier result on screen to be mistaken for its own;
        the error stays in the summary (the notification, which bubbles on to the app, fades)."""
        if message.what != "check":
            return
        self.result = None
        self.query_one(VerdictTable).show([])
        self.query_one(ItemDetail).show_item(None)
        failed = Text("The check failed: ", style="bold red")
        failed.append_text(plain(message.error_text(), one_line=False))
        self.query_one("#check-summary", Static).update(failed)
        self._ready_for_the_next_path()

    @on(DataTable.RowHighlighted, "#items")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.query_one(ItemDetail).show_item(self.query_one(VerdictTable).item_at(event.cursor_row))

    # -- actions -----------------------------------------------------------

    def action_focus_path(self) -> None:
        self.query_one("#path", Input).focus()

    def action_focus_items(self) -> None:
        self.query_one(VerdictTable).focus()

    def action_browse(self) -> None:
        typed = Path(self.query_one("#path", Input).value.strip() or ".").expanduser()
        start = typed if typed.is_dir() else typed.parent if typed.parent.is_dir() else Path(".")
        self.app.push_screen(FilePicker(start), self._picked)

    def _picked(self, path: Path | None) -> None:
        if path is not None:
            self.query_one("#path", Input).value = str(path)
            self.start(str(path), None)

    def action_paste(self) -> None:
        self.app.push_screen(PasteScreen(), self._pasted)

    def _pasted(self, text: str | None) -> None:
        if text:
            self.start("-", text)

    def action_recheck(self) -> None:
        if self.request is None:
            self.notify("Nothing checked yet.", severity="warning")
            return
        self._run(replace(self.request, accept=False, skip_duplicates=False))

    def _nothing_to_accept(self) -> bool:
        """Whether there is no check to accept, or it was accepted already (said so)."""
        if self.request is None or self.result is None:
            self.notify("Check a briefing first.", severity="warning")
            return True
        if self.result.accepted:
            self.notify("These items were accepted already.", severity="warning")
            return True
        return False

    def action_accept(self) -> None:
        if self._nothing_to_accept() or self.request is None or self.result is None:
            return
        refused = self.result.accept_refusal()  # all or nothing, as 'kbsearch check --accept'
        if refused is not None:
            # in the summary line too: the notification fades, the reason should not
            self.query_one("#check-summary", Static).update(summary(self.result, refused))
            offer = " ctrl+s accepts all but the DUPLICATEs."
            self.notify(refused[0].upper() + refused[1:] + "." + offer, severity="warning", markup=False)
            return
        self.app.push_screen(ConfirmScreen(accept_question(self.request, self.result), yes="Accept"), self._confirmed)

    def action_accept_skipping(self) -> None:
        """As 'kbsearch check --accept --skip-duplicates': the same check again, then the rest stored."""
        if self._nothing_to_accept() or self.request is None or self.result is None:
            return
        question = accept_question(self.request, self.result, skipping=True)
        self.app.push_screen(ConfirmScreen(question, yes="Accept"), self._confirmed_skipping)

    def _confirmed(self, yes: bool | None) -> None:
        if yes and self.request is not None:
            self._run(replace(self.request, accept=True, skip_duplicates=False))

    def _confirmed_skipping(self, yes: bool | None) -> None:
        if yes and self.request is not None:
            self._run(replace(self.request, accept=True, skip_duplicates=True))


def counts(result: CheckResult) -> dict[Verdict, int]:
    return {v: sum(1 for item in result.items if item.verdict is v) for v in Verdict}


def summary(result: CheckResult, refused: str | None = None) -> Text:
    """The check's counts, notes and edits; ``refused``: why ctrl+a accepted nothing."""
    line = Text(f"{counted(len(result.items), 'item')}: ")
    for number, (value, count) in enumerate(counts(result).items()):
        line.append(", " if number else "")
        line.append(f"{count} {value.value}", style=VERDICT_STYLE[value])
    if result.as_of:
        line.append(f"  ·  as of {result.as_of}", style="dim")
    if edits := edits_text(result):  # the CLI's words, as each item's outcome in the detail pane
        line.append(f"  ·  {edits}")
    if result.accepted:
        line.append(f"  ·  accepted {len(result.accepted)}", style="bold green")
        if done := accepted_parts(result):
            line.append(f" ({', '.join(done)})", style="dim")
    parts = [line, *(flag_line(flag) for flag in result.flags)]
    if refused := refused or result.accept_refused:  # "nothing accepted: …", the CLI's words
        parts.append(join(Text("  "), plain(refused[0].upper() + refused[1:], style="bold red")))
    parts += [join(Text("  warning: ", style="yellow"), plain(warning)) for warning in result.warnings]
    parts += [join(Text("  note: ", style="bold"), plain(note)) for note in result.notes]
    return join(*parts, sep="\n")


def accept_question(request: CheckRequest, result: CheckResult, *, skipping: bool = False) -> Text:
    """Names what was checked: the path box may hold another path by now; ``skipping``: ctrl+s's question."""
    tally = counts(result)
    question = Text("Accept ", style="bold")
    question.append(f"{tally[Verdict.NEW]} NEW", style=VERDICT_STYLE[Verdict.NEW])
    question.append(" and ")
    question.append(f"{tally[Verdict.UPDATE]} UPDATE", style=VERDICT_STYLE[Verdict.UPDATE])
    question.append(" items of ")
    question.append_text(plain("the pasted text" if request.source == "-" else request.source, style="bold"))
    if skipping:
        question.append(" into the index, leaving out its ")
        question.append(f"{tally[Verdict.DUPLICATE]} DUPLICATE", style=VERDICT_STYLE[Verdict.DUPLICATE])
        question.append(" items?\n")
        question.append(
            "The check runs again first, exactly as 'kbsearch check --accept --skip-duplicates' does; "
            "the index remembers what it leaves out, and 'kbsearch ingest' leaves it out too.",
            style="dim",
        )
        return question
    question.append(" into the index?\n")
    question.append(
        "The check runs again first, exactly as 'kbsearch check --accept' does; "
        "if it now finds a DUPLICATE, nothing is stored.",
        style="dim",
    )
    return question
