"""Units and quantisation widths that writers spell differently, read as one figure.

One writer's "41 毫秒" is another's "41 ms", "1.3 秒" is "1.3s": a time in Chinese
units reads in the English unit (``unit_after``), so the two are one figure and
neither is news against the other; so do minutes, hours, days and weeks (``measured``).

A quantisation width is written as a format (INT4, FP8, MXFP4), a weight and
activation pair (W4A16) or in bits (4-bit, 4 比特): each reads as ``4bit``
(``widths``), so INT4 against a record's "2-bit" is a changed figure, and "INT2"
against a record's "2-bit" is the same one. Only widths of 1 to 8 bits are read
so: FP16 and BF16 name a baseline's precision, not a quantised result, and
"16-bit" keeps reading as ``16``.

A duration, a power, an energy or a size is one quantity in whichever unit or prefix it
is written (``measured``): "48 hours" and "2 天" are ``2d``, "0.75 h" and "45 min" are
``45min``, "0.132 MW" and "132 kW" are ``132kw``, "1200 GB/s" and "1.2 TB/s" ``1.2tb``.
The spelling depends on the amount alone: the largest unit of its ladder in which it is
1 or more with at most two decimals. ``SCALED`` gives each such unit's size in its
ladder's first one, so a rounder or a changed figure compares across units (45min, 1h).
Months and years have no one length and stay bare numbers.
"""

from __future__ import annotations

import re
from decimal import Decimal

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


# A unit after its number, spaced or glued: 45 min, 2.25 h, 48 hours, 2 天, 3 个小时, 2 周,
# 132 kW, 0.132 MW, 5 兆瓦, 1.2 MWh, 300 千瓦时. Not 3 周年, 8 H200, a milliwatt (mW), 3D.
_UNIT_AFTER = re.compile(
    r"\s*(?:(?P<us>(?:µs|μs|微秒)(?![A-Za-z]))|(?P<min>(?:min(?:ute)?s?)(?![A-Za-z])|分钟)"
    r"|(?P<h>(?:h|hrs?|hours?)(?![A-Za-z0-9_])|个?小时|个?钟头)|(?P<d>days?(?![A-Za-z])|天)"
    r"|(?P<wk>(?:weeks?|wks?)(?![A-Za-z])|个?(?:星期|礼拜)|周(?![年期末]))"
    r"|(?P<wh>Wh(?![A-Za-z])|瓦时)|(?P<kwh>[kK][wW]h|千瓦时)(?![A-Za-z])|(?P<mwh>MWh|兆瓦时)(?![A-Za-z])"
    r"|(?P<gwh>G[wW]h)(?![A-Za-z])|(?P<w>W(?![A-Za-z0-9_])|瓦(?!时))|(?P<kw>[kK][wW](?![A-Za-z0-9_])|千瓦(?!时))"
    r"|(?P<mw>MW(?![A-Za-z0-9_])|兆瓦(?!时))|(?P<gw>G[wW](?![A-Za-z0-9_])|吉瓦(?!时))|(?P<tw>TW(?![A-Za-z0-9_])))"
)
_LADDERS = (
    ("ms", "s", "min", "h", "d", "wk"),
    ("w", "kw", "mw", "gw", "tw"),
    ("wh", "kwh", "mwh", "gwh"),
    ("gb", "tb"),
)
SCALED: dict[str, tuple[Decimal, str]] = {
    "us": (Decimal("0.001"), "ms"),
    "s": (Decimal(1000), "ms"), "min": (Decimal(60000), "ms"), "h": (Decimal(3600000), "ms"),
    "d": (Decimal(86400000), "ms"), "wk": (Decimal(604800000), "ms"),
    **{unit: (Decimal(1000) ** step, ladder[0]) for ladder in _LADDERS[1:] for step, unit in enumerate(ladder)},
}  # fmt: skip
"""Each unit a measure is spelled in: its size in its ladder's first unit, and that unit."""
_LADDER_OF = {unit: ladder for ladder in _LADDERS for unit in ladder}
_PLACES = 2


def unit_after(text: str, end: int) -> str:
    """The unit a number ending at ``end`` is written with in words (``毫秒`` → ``ms``,
    ``秒`` → ``s``, ``hours`` → ``h``, ``天`` → ``d``, ``MW`` → ``mw``), or ``""``."""
    match = _TIME_AFTER.match(text, end)
    if match is not None:
        return "ms" if match.group(1) else "s"
    match = _UNIT_AFTER.match(text, end)
    return "" if match is None or match.lastgroup is None else match.lastgroup


def measured(amount: Decimal, unit: str) -> str | None:
    """``amount`` of ``unit`` (a key of ``SCALED`` or a ladder's first unit) in its one
    spelling (see the module): 48 ``h`` → ``2d``, 0.132 ``mw`` → ``132kw``; ``None`` for
    another unit."""
    size, first = SCALED.get(unit, (Decimal(1), unit))
    if first not in _LADDER_OF:
        return None
    base = amount * size
    ladder = _LADDER_OF[first]
    for name in reversed(ladder):
        shown = base / SCALED.get(name, (Decimal(1), first))[0]
        if shown >= 1 and int(shown.normalize().as_tuple().exponent) >= -_PLACES:
            return f"{_plain(shown)}{name}"
    return f"{_plain(base)}{ladder[0]}"


def _plain(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


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
