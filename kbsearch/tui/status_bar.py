"""One line at the bottom of every screen: which index, how big, which model, when last fed."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from kbsearch.kb import Stats
from kbsearch.tui.literal import plain


def status_text(label: str, stats: Stats | None, problem: str | None) -> Text:
    line = Text(" index ", style="dim")
    line.append_text(plain(label, style="bold"))
    if problem:
        line.append("  ·  ", style="dim")
        line.append_text(plain(problem, style="bold red"))
        return line
    if stats is None:
        line.append("  ·  opening…", style="dim")
        return line
    last = (stats.last_ingest or "never").replace("T", " ").replace("+00:00", " UTC")
    for name, value in (("records", f"{stats.records:,}"), ("model", stats.model or "-"), ("last ingest", last)):
        line.append(f"  ·  {name} ", style="dim")
        line.append_text(plain(value))
    return line


class StatusBar(Static):
    """Follows the app's ``stats`` and ``problem`` (see ``KbApp``)."""

    DEFAULT_CSS = "StatusBar { height: 1; background: $panel; }"

    def on_mount(self) -> None:
        # Every screen has its own bar; each watches the one app-level state.
        self.watch(self.app, "stats", self._refresh_text)
        self.watch(self.app, "problem", self._refresh_text)

    def _refresh_text(self, _: object = None) -> None:
        app = self.app
        self.update(
            status_text(getattr(app, "index_label", "?"), getattr(app, "stats", None), getattr(app, "problem", None))
        )
