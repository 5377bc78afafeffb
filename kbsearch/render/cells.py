"""Terminal cells: cutting and padding text so CJK columns line up, and counted nouns."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len

if TYPE_CHECKING:
    pass


MATCH_STYLE = "bold underline"


def fit(text: str, width: int) -> str:
    """Cut or pad to ``width`` terminal cells, so CJK columns line up."""
    out, used = [], 0
    for ch in text:
        w = cell_len(ch)
        if used + w > width - (1 if used + w < cell_len(text) else 0):
            out.append("…")
            used += 1
            break
        out.append(ch)
        used += w
    return "".join(out) + " " * max(0, width - used)


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 record``, ``2 records``."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def who(instance: str | None, date: object) -> str:
    return f"{instance or '-'} {date or '-'}"
