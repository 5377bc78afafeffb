"""One stored record on a screen of its own, opened from an audit row or a
nearest record; its own nearest records open in turn, escape goes back."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from kbsearch.records import Record
from kbsearch.tui.gateway import KbGateway
from kbsearch.tui.jobs import JobFailed, run_job
from kbsearch.tui.literal import plain
from kbsearch.tui.record_detail import Found, RecordDetail, neighbours_job


class RecordScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "dismiss", "Close record")]

    class Loaded(Message):
        def __init__(self, found: Found) -> None:
            super().__init__()
            self.found = found

    def __init__(self, gateway: KbGateway, record_id: str) -> None:
        super().__init__()
        self.gateway = gateway
        self.record_id = record_id
        self.record: Record | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="record-box", classes="dialog"):
            yield RecordDetail(id="record")
            yield Static(Text("escape goes back", style="dim"))

    def on_mount(self) -> None:
        self.query_one(RecordDetail).show_message(Text(f"Opening {self.record_id}…", style="dim"))
        self.query_one(RecordDetail).focus()
        self.load_worker()

    @work(thread=True, exclusive=True, group="record", exit_on_error=False)
    def load_worker(self) -> None:
        record_id = self.record_id

        run_job(self, self.gateway, f"open {record_id}", neighbours_job(record_id), self.Loaded)

    def on_record_screen_loaded(self, message: Loaded) -> None:
        self.record = message.found[0]
        detail = self.query_one(RecordDetail)
        detail.show_hit(self.record)
        detail.show_neighbours(message.found)

    def on_job_failed(self, message: JobFailed) -> None:
        # Said here as well as in the notification, which bubbles on to the app.
        self.query_one(RecordDetail).show_message(Text(plain(message.error_text()).plain, style="bold red"))
