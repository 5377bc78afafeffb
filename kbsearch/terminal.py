"""Making untrusted text safe to print on a terminal.

Record text, file names and error messages quote files nobody vetted. An
escape sequence in them could recolour or clear the screen, retitle the
window, plant a hyperlink (OSC 8) or query the terminal, so everything
printed goes through ``clean``. Kept free of heavy imports: the CLI's error
path uses it.
"""

from __future__ import annotations

import re
import unicodedata

# CSI (ESC [ … final), OSC (ESC ] … BEL or ST), and the two-byte ESC forms.
ESCAPE_SEQUENCE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
# Control (Cc), format (Cf: bidi overrides, zero-width tricks), surrogate and
# private-use characters; a zero-width joiner is kept so emoji sequences survive.
_DROPPED = frozenset({"Cc", "Cf", "Cs", "Co"})
_KEPT = frozenset("\n\t\u200d")


def clean(text: str | None, *, one_line: bool = False) -> str:
    """Text safe to print: no escape sequences, no control characters."""
    if not text:
        return ""
    text = ESCAPE_SEQUENCE.sub("", text)
    out = "".join(ch for ch in text if ch in _KEPT or unicodedata.category(ch) not in _DROPPED)
    return " ".join(out.split()) if one_line else out


def inert_json(text: str) -> str:
    """JSON text with every control and format character written as a \\u escape.

    The data is the same (such characters only occur inside JSON strings,
    apart from the newlines of the indentation), but a terminal shown the
    output has nothing to obey: json and pydantic escape C0 controls, not C1
    ones (a lone 0x9b starts a CSI sequence) or bidi overrides.
    """
    return "".join(_json_escape(ch) if ch != "\n" and unicodedata.category(ch) in {"Cc", "Cf"} else ch for ch in text)


def _json_escape(ch: str) -> str:
    units = ch.encode("utf-16-be")
    return "".join(f"\\u{int.from_bytes(units[i : i + 2], 'big'):04x}" for i in range(0, len(units), 2))
