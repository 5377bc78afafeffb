"""Units and quantisation widths that writers spell differently, read as one figure.

One writer's "41 毫秒" is another's "41 ms", "1.3 秒" is "1.3s": a time in Chinese
units reads in the English unit (``unit_after``), so the two are one figure and
neither is news against the other. Minutes and hours are read as bare numbers in
both languages (``3 分钟`` and ``3 min`` are both ``3``), as before.

A quantisation width is written as a format (INT4, FP8, MXFP4), a weight and
activation pair (W4A16) or in bits (4-bit, 4 比特): each reads as ``4bit``
(``widths``), so INT4 against a record's "2-bit" is a changed figure, and "INT2"
against a record's "2-bit" is the same one. Only widths of 1 to 8 bits are read
so: FP16 and BF16 name a baseline's precision, not a quantised result, and
"16-bit" keeps reading as ``16``.
"""

from __future__ import annotations

import re

# A time written after its number in words: 41 毫秒, 1.3 秒钟, 41 milliseconds, a 30-second window.
_TIME_AFTER = re.compile(
    r"(?:\s*|-)(?:(毫秒|(?:milli-?seconds?|msecs?)(?![A-Za-z]))|(秒钟?|(?:seconds?|secs?)(?![A-Za-z])))",
    re.IGNORECASE,
)
_SPAN = r"(\d(?:\.\d+)?)(?:\s*(?:[-–~～到至]|to(?=\s))\s*(\d(?:\.\d+)?))?"
_WIDTH = re.compile(
    r"(?<![A-Za-z0-9_.])(?:u?int|fp|mxfp|nvfp)([1-8])(?![\d.])"  # INT4, FP8, MXFP4, NVFP4
    r"|(?<![A-Za-z0-9_.])w([1-8])a\d{1,2}(?![\d.])"  # W4A16, W8A8: the weights' width
    rf"|(?<![A-Za-z0-9_.@#§²³-]){_SPAN}[\s-]?(?:bits?(?![A-Za-z])|比特)",  # 4-bit, 1.58-bit, 3-4 比特
    re.IGNORECASE,
)
# 位 counts bits in a text about quantisation (4位量化, 4~6位) or after a decimal (压缩至1.58位),
# and people elsewhere (3 位专家); 位数 and 位置 are neither.
_WEI = re.compile(rf"(?<![A-Za-z0-9_.@#§²³-]){_SPAN}\s*位(?![数置])")
_QUANTISED = re.compile(
    r"量化|比特|精度|quanti[sz]|(?<![A-Za-z])bits?(?![A-Za-z])|(?:int|fp)[1-8](?!\d)", re.IGNORECASE
)


def unit_after(text: str, end: int) -> str:
    """The unit a number ending at ``end`` is written with in words (``毫秒`` → ``ms``,
    ``秒`` → ``s``), or ``""``."""
    match = _TIME_AFTER.match(text, end)
    if match is None:
        return ""
    return "ms" if match.group(1) else "s"


def widths(text: str) -> tuple[str, set[str]]:
    """``text`` with its quantisation widths blanked out, and the widths (``4bit``)."""
    found: set[str] = set()

    def blank(match: re.Match[str]) -> str:
        found.update(f"{value}bit" for value in match.groups() if value)
        return " "

    quantised = _QUANTISED.search(text) is not None

    def bits(match: re.Match[str]) -> str:  # 1.58 位 is no count of people
        return blank(match) if quantised or "." in match.group(1) else match.group(0)

    return _WEI.sub(bits, _WIDTH.sub(blank, text)), found
