"""One row per checked item: its colour-coded verdict, flags, new claims and title."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from kbsearch.dedupe.results import ItemResult
from kbsearch.tui.fill_table import FillTable
from kbsearch.tui.literal import cell, verdict


def new_claims(item: ItemResult) -> Text:
    if not item.claims:
        return Text("-", style="dim")
    fresh = sum(1 for claim in item.claims if not claim.known)
    return Text(f"{fresh}/{len(item.claims)}", justify="right", style="green" if fresh else "")


class VerdictTable(FillTable[ItemResult]):
    COLUMNS: ClassVar[tuple[tuple[str, int], ...]] = (
        ("verdict", 9),
        ("!", 1),
        ("new", 5),
        ("instance", 8),
        ("date", 10),
        ("title", 16),
    )
    DROPPABLE: ClassVar[tuple[str, ...]] = ("date", "instance", "new")

    def row_cells(self, item: ItemResult) -> tuple[Text, ...]:
        # "!" marks an item flagged as claimed new although it was seen before
        flag = Text("!", style="bold magenta") if item.flags else Text("")
        return (
            verdict(item.verdict),
            flag,
            new_claims(item),
            cell(item.instance),
            cell(item.date),
            cell(item.title or item.id),
        )
