"""F1 / ?: every key binding, where it works and what it does."""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

WIDGET_KEYS = [
    ("Search", "↓ / enter", "in the query: move into the results"),
    ("Tables", "↑ ↓ PgUp PgDn", "move; the detail pane follows the cursor"),
    ("Tables", "enter", "search: open the detail pane"),
    ("Detail", "enter", "on a nearest record: open it (escape goes back)"),
    ("Check", "typing", "in the items: goes to the path box (replacing the path just checked)"),
    ("Check", "ctrl+y / esc", "in the accept dialog: accept / cancel (enter presses the focused Cancel)"),
    ("Audit", "enter / space", "expand or collapse a cluster; on a record, open it"),
    ("Everywhere", "tab / shift+tab", "move between the query, filters, results and detail"),
]
EVERYWHERE = [("Everywhere", "ctrl+p", "command palette: every action, and every filter value")]
"""Right after the app's own keys, where F1 opens at 80x24 (it was last, below the fold)."""


HELP_WIDTH = 96
"""The help box's width (app.tcss), on a terminal at least as wide."""
HELP_FRAME = 2 + 4 + 2
"""Its border, padding and the table's scrollbar."""


class HelpScreen(ModalScreen[None]):
    """Lists the bindings it is given, so it can never disagree with them."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,f1,question_mark,q", "dismiss", "Close help")]

    def __init__(self, sections: list[tuple[str, list[Binding]]], key_display: dict[str, str]) -> None:
        super().__init__()
        self.sections = sections
        self.key_display = key_display

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box", classes="dialog"):
            yield Static(Text("kbsearch: keys", style="bold"))
            yield DataTable(id="help-keys", cursor_type="none", zebra_stripes=True)
            yield Static(Text("escape closes", style="dim"))

    def on_mount(self) -> None:
        rows = [
            (where, self.key_display.get(binding.key, binding.key), binding.description)
            for where, bindings in self.sections
            for binding in bindings
        ]
        everywhere = sum(1 for where, _, _ in rows if where == "Everywhere")
        rows[everywhere:everywhere] = EVERYWHERE
        rows += WIDGET_KEYS
        table = self.query_one(DataTable)
        # The first two columns as wide as their longest entry; the last one wraps in what
        # is left of the box (at 80 columns a long description was cut, even when scrolled).
        widths = [max(cell_len(row[n]) for row in rows) for n in (0, 1)]
        box = min(HELP_WIDTH, self.app.size.width) - HELP_FRAME
        does = max(20, box - sum(widths) - 2 * 3)  # each cell has one column of padding a side
        table.add_column("where", width=widths[0])
        table.add_column("key", width=widths[1])
        table.add_column("does", width=does)
        for where, key, what in rows:
            table.add_row(Text(where, style="dim"), Text(key, style="bold"), Text(what), height=None)
        table.focus()
