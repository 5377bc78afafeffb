"""Text whose record ids stay readable in a narrow pane.

Textual wraps at spaces and folds a word wider than the pane anywhere, so a record
id (``tom/2026-09-16-tom-inference-e1prep#2``, one word of 37 cells) in a detail
pane of 29 cells read ``tom/2026-09-16-tom-inference-`` over ``e1prep#2``, and a
neighbour's ``jay/2026-09-17-jay-infe`` over ``rence-e1prep#1``. Here a line breaks
at a space as before, and inside a word only after a ``/`` or before a ``#``: an id
moves whole to its own line when it fits there, and is otherwise cut into its writer,
its file and its item number, each whole (the detail panes are wide enough for a
briefing's file name: ``app.tcss``). A part wider than the pane is left to Textual.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.widgets import Static


def breaks(line: str) -> list[int]:
    """Where ``line`` may break: before a word (not after the indent), after a ``/``, before a ``#``."""
    return [
        i
        for i in range(1, len(line))
        if (line[i - 1] == " " and line[i] != " " and line[:i].strip()) or line[i - 1] == "/" or line[i] == "#"
    ]


def fitted(text: Text, width: int) -> Text:
    """``text`` with a line break wherever a line holding a word wider than ``width`` (an id
    Textual would fold anywhere) is wider than it, at a place ``breaks`` allows; a line
    continued inside a word keeps the line's indent. Other lines are left to Textual."""
    if width <= 0:
        return text
    out: list[Text] = []
    for line in text.split("\n", allow_blank=True):
        plain = line.plain
        indent = len(plain) - len(plain.lstrip(" "))
        first = cell_len(plain[indent:].split(" ", 1)[0])
        if indent + first > width >= first:  # less indent, not a break, for a first word that fits so
            line, plain, indent = line[indent + first - width :], plain[indent + first - width :], width - first
        words = (plain[:indent] + plain[indent:].split(" ", 1)[0], *plain[indent:].split()[1:])
        if all(cell_len(word) <= width for word in words):  # (the indent does not break)
            out.append(line)  # Textual wraps it as well, at its spaces
            continue
        start, cuts = 0, list[int]()
        places = breaks(plain)
        while cell_len(plain[start:].rstrip()) > (room := width - (indent if _in_word(plain, cuts) else 0)):
            fits = [at for at in places if start < at and cell_len(plain[start:at].rstrip()) <= room]
            if not fits:
                break
            start = _whole_word(plain, start, fits, width)
            cuts.append(start)
        pieces = line.divide(cuts) if cuts else [line]
        for n, piece in enumerate(pieces):
            piece.rstrip()
            if _in_word(plain, cuts[:n]):  # continued inside a word: keep the indent
                piece = Text(" " * indent) + piece
            out.append(piece)
    return Text("\n").join(out)


def _in_word(plain: str, cuts: list[int]) -> bool:
    """Whether the line goes on after the last of ``cuts`` inside a word."""
    return bool(cuts) and plain[cuts[-1] - 1] != " "


def _whole_word(plain: str, start: int, fits: list[int], width: int) -> int:
    """The last break in ``fits``; but a break inside a word only when the whole word is
    wider than a line: else before the word, which then goes whole to the next line."""
    last = fits[-1]
    before = max((at for at in fits if plain[at - 1] == " "), default=start)
    word = plain[before:].split(" ", 1)[0]
    return before if before > start and before != last and cell_len(word) <= width else last


class IdStatic(Static):
    """A ``Static`` showing a ``Text`` broken by ``fitted`` to its width, again when resized."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = Text("")

    def show(self, text: Text) -> None:
        self.text = text
        self.update(fitted(text, self.content_size.width))

    def on_resize(self, event: events.Resize) -> None:
        self.update(fitted(self.text, self.content_size.width))
