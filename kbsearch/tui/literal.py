"""Record text as inert rich ``Text``.

Record text comes from files nobody vetted. Textual parses plain strings as
markup in many places (table cells, tree labels, ``Static``, notifications),
so a title holding ``[bold]`` or ``[link=…]`` would be interpreted. Every
string that came from a record goes through here instead: escape sequences and
control characters stripped by ``render.clean``, then wrapped in ``Text``,
which is never parsed.
"""

from __future__ import annotations

from rich.text import Text

from kbsearch.dedupe.results import Verdict
from kbsearch.render import clean

VERDICT_STYLE = {
    Verdict.NEW: "bold green",
    Verdict.UPDATE: "bold yellow",
    Verdict.DUPLICATE: "bold red",
}


def plain(text: object, *, one_line: bool = True, style: str = "") -> Text:
    """``text`` shown literally (``None`` becomes ``-``)."""
    raw = "-" if text is None or text == "" else str(text)
    return Text(clean(raw, one_line=one_line), style=style)


def cell(text: object, style: str = "") -> Text:
    """A one-line table cell that is cut with an ellipsis instead of wrapping."""
    out = plain(text, style=style)
    out.no_wrap = True
    out.overflow = "ellipsis"
    return out


def verdict(value: Verdict) -> Text:
    return Text(value.value, style=VERDICT_STYLE[value])


def join(*parts: Text | str, sep: str = "") -> Text:
    """Concatenate; ``str`` parts are our own fixed wording, never record text."""
    return Text(sep).join(p if isinstance(p, Text) else Text(p) for p in parts)
