"""A row-cursor table whose last column takes the width the others leave.

A long title is cut with an ellipsis instead of pushing the table into a
horizontal scroll; the detail pane next to it shows the whole text. On a
narrow terminal (80 columns) the columns named in ``DROPPABLE`` are left out,
in order, until the last column gets at least its minimum width: the title
says which record a row is, a date or an instance only narrows it down.
"""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from rich.text import Text
from textual import events
from textual.widgets import DataTable

T = TypeVar("T")


class FillTable(DataTable[object], Generic[T]):
    """Subclasses give ``COLUMNS`` (label, width; the last width is a minimum),
    ``DROPPABLE`` and ``row_cells`` (one cell per column of ``COLUMNS``)."""

    COLUMNS: ClassVar[tuple[tuple[str, int], ...]] = ()
    DROPPABLE: ClassVar[tuple[str, ...]] = ()
    """Labels of the columns that go first when the table is narrow, first to go first."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.items: list[T] = []
        self._fill_width = 0
        self._shown: tuple[int, ...] = tuple(range(len(self.COLUMNS)))

    def row_cells(self, item: T) -> tuple[Text, ...]:
        raise NotImplementedError

    @property
    def shown_columns(self) -> list[str]:
        """The labels of the columns on screen now."""
        return [self.COLUMNS[i][0] for i in self._shown]

    def on_mount(self) -> None:
        self._layout(self.COLUMNS[-1][1], self._shown)

    def on_resize(self, event: events.Resize) -> None:
        shown, wanted = self.fit(event.size.width)
        if (shown, wanted) != (self._shown, self._fill_width):
            self._layout(wanted, shown)

    def fit(self, width: int) -> tuple[tuple[int, ...], int]:
        """The columns that fit in ``width`` cells, and the last one's width."""
        last = len(self.COLUMNS) - 1
        minimum = self.COLUMNS[last][1]
        kept = list(range(last))
        droppable = [i for label in self.DROPPABLE for i, (name, _) in enumerate(self.COLUMNS) if name == label]

        def spare() -> int:
            # one cell of padding each side of every column, two for the scrollbar
            return width - sum(self.COLUMNS[i][1] for i in kept) - 2 * (len(kept) + 1) - 2

        for index in droppable:
            if spare() >= minimum:
                break
            kept.remove(index)
        return (*kept, last), max(minimum, spare())

    def _layout(self, fill_width: int, shown: tuple[int, ...]) -> None:
        row = self.cursor_row
        self._fill_width = fill_width
        self._shown = shown
        self.clear(columns=True)
        for index in shown[:-1]:
            label, width = self.COLUMNS[index]
            self.add_column(label, width=width, key=label)
        self.add_column(self.COLUMNS[-1][0], width=fill_width, key=self.COLUMNS[-1][0])
        self._fill(row)

    def show(self, items: list[T]) -> None:
        self.clear()
        self.items = list(items)
        self._fill(0)

    def _fill(self, row: int) -> None:
        for number, item in enumerate(self.items):
            cells = self.row_cells(item)
            self.add_row(*(cells[i] for i in self._shown), key=str(number))
        if self.items:
            self.move_cursor(row=min(row, len(self.items) - 1))

    def item_at(self, row: int) -> T | None:
        return self.items[row] if 0 <= row < len(self.items) else None
