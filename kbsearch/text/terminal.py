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

# Every control (Cc) and format (Cf) character but the newline, as ranges of
# Unicode 14 (Python 3.11; tests/test_security.py checks them against
# unicodedata). One regex pass: a million records' audit is hundreds of MB
# of JSON, and joining it a character at a time held gigabytes.
_INERT_RANGES = (
    (0x00, 0x09),
    (0x0B, 0x1F),
    (0x7F, 0x9F),
    (0xAD, 0xAD),
    (0x600, 0x605),
    (0x61C, 0x61C),
    (0x6DD, 0x6DD),
    (0x70F, 0x70F),
    (0x890, 0x891),
    (0x8E2, 0x8E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x13438),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)
_CONTROL_OR_FORMAT = re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in _INERT_RANGES) + "]")


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
    return _CONTROL_OR_FORMAT.sub(lambda found: _json_escape(found.group()), text)


def _json_escape(ch: str) -> str:
    units = ch.encode("utf-16-be")
    return "".join(f"\\u{int.from_bytes(units[i : i + 2], 'big'):04x}" for i in range(0, len(units), 2))
