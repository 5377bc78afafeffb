"""Browse for a briefing, paper card or JSONL file to check."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DirectoryTree, Static


class FilePicker(ModalScreen[Path | None]):
    """Dismisses with the chosen file, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, start: Path) -> None:
        super().__init__()
        self.start = start

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box", classes="dialog"):
            yield Static("Choose a file to check: arrows move, enter opens, escape cancels.")
            yield DirectoryTree(self.start, id="picker-tree")

    def on_mount(self) -> None:
        self.query_one(DirectoryTree).focus()

    @on(DirectoryTree.FileSelected)
    def _chosen(self, event: DirectoryTree.FileSelected) -> None:
        self.dismiss(event.path)

    def action_cancel(self) -> None:
        self.dismiss(None)
