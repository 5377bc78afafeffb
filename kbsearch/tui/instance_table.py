"""audit's per-instance table: the rows of ``AuditResult.by_instance``, as the CLI's
"per instance" lines and its ``--json`` show them (items, repeats, repeats of the
writer's own earlier record, claimed new but seen before), in the same order."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from kbsearch.dedupe.audit_results import AuditResult
from kbsearch.dedupe.audit_summary import InstanceSummary
from kbsearch.tui.literal import cell

COLUMNS = ("instance", "items", "repeats", "of own", "claimed new, seen before")


class InstanceTable(DataTable[object]):
    """One row per writer of the audited records; the numbers are the result's, never recounted."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True, show_cursor=False)
        self.items: list[InstanceSummary] = []

    def on_mount(self) -> None:
        for label in COLUMNS:
            self.add_column(label, key=label)

    def show(self, result: AuditResult | None) -> None:
        self.clear()
        self.items = list(result.by_instance) if result is not None else []
        for number, row in enumerate(self.items):
            numbers = (row.items, row.repeats, row.own_repeats, row.claimed_new_seen_before)
            cells = [Text(str(n), justify="right", style="bold" if n and i else "") for i, n in enumerate(numbers)]
            self.add_row(cell(row.instance, "cyan"), *cells, key=str(number))
        self.display = bool(self.items)
