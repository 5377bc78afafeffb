"""A yes/no question; dismisses with True only on an explicit yes.

No letter answers it: the question follows a user's typing (the check screen's
path box), and a letter typed on would otherwise say yes. The focus starts on
Cancel, so enter and escape both cancel; ctrl+y, or enter on the yes button
(tab moves to it), is the yes.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+y", "answer(True)", "Yes"),
        Binding("escape", "answer(False)", "No"),
    ]

    def __init__(self, question: Text, yes: str = "Yes") -> None:
        super().__init__()
        self.question = question
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="dialog"):
            yield Static(self.question, id="confirm-question")
            with Horizontal(classes="buttons"):
                yield Button(f"{self.yes} (ctrl+y)", variant="primary", id="yes")
                yield Button("Cancel (esc)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
