"""Paste a briefing, or the text of one increment, to check it without a file."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static, TextArea


class PasteScreen(ModalScreen[str | None]):
    """Dismisses with the pasted text, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "submit", "Check it"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="paste-box", classes="dialog"):
            yield Static(
                "Paste a briefing, or one increment (its first line is the title). ctrl+s checks, escape cancels."
            )
            yield TextArea(id="paste-text", soft_wrap=True, show_line_numbers=False)
            with Horizontal(classes="buttons"):
                yield Button("Check (ctrl+s)", variant="primary", id="submit")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    @on(Button.Pressed, "#submit")
    def action_submit(self) -> None:
        text = self.query_one(TextArea).text
        if not text.strip():
            self.notify("Nothing pasted yet.", severity="warning")
            return
        self.dismiss(text)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
