"""The search results: score, kind, instance, date and title of each hit."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

import kbsearch.tui.hits as hitview
from kbsearch.kb import SearchHit
from kbsearch.tui.fill_table import FillTable


class ResultsTable(FillTable[SearchHit]):
    COLUMNS: ClassVar[tuple[tuple[str, int], ...]] = hitview.COLUMNS
    DROPPABLE: ClassVar[tuple[str, ...]] = ("date", "instance", "kind")

    def row_cells(self, item: SearchHit) -> tuple[Text, ...]:
        return hitview.row_cells(item)
