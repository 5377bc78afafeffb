"""The footer every screen shows: the keys needed on any screen come first.

Textual's footer lists the focused widget's keys, then the screen's, then the
app's, and cuts the row at the right edge: at 80 columns the check screen lost
Quit, Help and the keys of the other screens. Here the app's keys lead (the
key of the screen already shown is left out), labels are short, and the
compact style leaves room for the screen's own keys after them. Help (F1) and
the palette keep the long descriptions.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer

FIRST = ("help", "quit", "switch_mode('search')", "switch_mode('check')", "switch_mode('audit')")
"""Actions shown first, in this order, on every screen."""

SHORT = {
    "clear_filters": "Clear",
    "accept": "Accept all",
    "browse": "Open",
    "paste": "Paste",
    "recheck": "Recheck",
    "refresh_audit": "Re-audit",
    "expand_all": "Expand",
    "collapse_all": "Collapse",
    "toggle_across": "Across",
    "reload": "Reload",
}
"""Footer labels of actions whose description (in Help and the palette) is longer."""


class KbFooter(Footer):
    def __init__(self) -> None:
        super().__init__(compact=True)

    def compose(self) -> ComposeResult:
        shown = f"switch_mode({self.app.current_mode!r})"
        keys = [key for key in super().compose() if getattr(key, "action", None) != shown]
        for key in keys:
            action = getattr(key, "action", "")
            if action in SHORT:
                key.description = SHORT[action]  # type: ignore[attr-defined]
        yield from sorted(keys, key=_rank)


def _rank(key: Widget) -> int:
    if key.has_class("-command-palette"):
        return len(FIRST) + 1  # docked at the right edge, as Textual places it
    action = getattr(key, "action", None)
    return FIRST.index(action) if action in FIRST else len(FIRST)
