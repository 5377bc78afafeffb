"""A row-cursor table whose last column takes the width the others leave.

A long title is cut with an ellipsis instead of pushing the table into a
horizontal scroll; the detail pane next to it shows the whole text.
"""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from rich.text import Text
from textual import events
from textual.widgets import DataTable

T = TypeVar("T")


class FillTable(DataTable[object], Generic[T]):
    """Subclasses give ``COLUMNS`` (label, width; the last width is a minimum) and ``row_cells``."""

    COLUMNS: ClassVar[tuple[tuple[str, int], ...]] = ()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.items: list[T] = []
        self._fill_width = 0

    def row_cells(self, item: T) -> tuple[Text, ...]:
        raise NotImplementedError

    def on_mount(self) -> None:
        self._layout(self.COLUMNS[-1][1])

    def on_resize(self, event: events.Resize) -> None:
        fixed = sum(width for _, width in self.COLUMNS[:-1])
        # one cell of padding each side of every column, two for the scrollbar
        spare = event.size.width - fixed - 2 * len(self.COLUMNS) - 2
        wanted = max(self.COLUMNS[-1][1], spare)
        if wanted != self._fill_width:
            self._layout(wanted)

    def _layout(self, fill_width: int) -> None:
        row = self.cursor_row
        self._fill_width = fill_width
        self.clear(columns=True)
        for label, width in self.COLUMNS[:-1]:
            self.add_column(label, width=width, key=label)
        self.add_column(self.COLUMNS[-1][0], width=fill_width, key=self.COLUMNS[-1][0])
        self._fill(row)

    def show(self, items: list[T]) -> None:
        self.clear()
        self.items = list(items)
        self._fill(0)

    def _fill(self, row: int) -> None:
        for number, item in enumerate(self.items):
            self.add_row(*self.row_cells(item), key=str(number))
        if self.items:
            self.move_cursor(row=min(row, len(self.items) - 1))

    def item_at(self, row: int) -> T | None:
        return self.items[row] if 0 <= row < len(self.items) else None
