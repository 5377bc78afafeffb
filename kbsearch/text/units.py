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

So is a rate or count with an SI prefix (probe 33): "2400 TFLOPS" and "2.4 PFLOPS" are
``2.4pflops``, "2100 MHz" and "2.1 GHz" ``2.1ghz``, "800 Gbps" and "800 Gb/s" ``800gbps``,
"2000 TB" and "2 PB" ``2pb``. Bits and bytes stay apart (a small b is a bit): 1.2 TB/s is no
1.2 Tb/s, and FLOPS no TOPS (an integer operation is no floating-point one).
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


_PREFIXES = ("", "k", "m", "g", "t", "p", "e")
"""SI prefixes in ladder order: a step of each is a thousand."""
_LETTER = {"": "", "k": "[kK]", "m": "M", "g": "G", "t": "T", "p": "P", "e": "E"}
_WORD = {"": "", "k": "kilo", "m": "mega", "g": "giga", "t": "tera", "p": "peta", "e": "exa"}
_CHINESE_HZ = {"": "赫兹", "k": "千赫兹?", "m": "兆赫兹?", "g": "吉赫兹?"}


def _prefixed(unit: str, pattern: str, flags: str = "", close: str = "") -> str:
    """A named group for each prefix of ``unit`` (``tflops``, ``ghz``): ``pattern`` with ``{p}`` its
    letter, ``{w}`` its word and ``{z}`` its Chinese (hertz only), not followed by a letter."""
    groups = []
    for prefix in _PREFIXES:
        if unit == "hz" and prefix not in _CHINESE_HZ:
            continue
        zh = _CHINESE_HZ.get(prefix, "(?!)")
        word = _WORD[prefix] if prefix else "(?!)"
        body = pattern.format(p=_LETTER[prefix], w=word, z=zh)
        groups.append(f"(?P<{prefix}{unit}>{flags}{body}{close})(?![A-Za-z0-9_])")
    return "|".join(groups)


# A unit after its number, spaced or glued: 45 min, 2.25 h, 48 hours, 2 天, 3 个小时, 2 周,
# 132 kW, 0.132 MW, 5 兆瓦, 1.2 MWh, 300 千瓦时. Not 3 周年, 8 H200, a milliwatt (mW), 3D.
_UNIT_AFTER = re.compile(
    r"\s*(?:(?P<us>(?:µs|μs|微秒)(?![A-Za-z]))|(?P<min>(?:min(?:ute)?s?)(?![A-Za-z])|分钟)"
    r"|(?P<h>(?:h|hrs?|hours?)(?![A-Za-z0-9_])|个?小时|个?钟头)|(?P<d>days?(?![A-Za-z])|天)"
    r"|(?P<wk>(?:weeks?|wks?)(?![A-Za-z])|个?(?:星期|礼拜)|周(?![年期末]))"
    r"|(?P<wh>Wh(?![A-Za-z])|瓦时)|(?P<kwh>[kK][wW]h|千瓦时)(?![A-Za-z])|(?P<mwh>MWh|兆瓦时)(?![A-Za-z])"
    r"|(?P<gwh>G[wW]h)(?![A-Za-z])|(?P<w>W(?![A-Za-z0-9_])|瓦(?!时))|(?P<kw>[kK][wW](?![A-Za-z0-9_])|千瓦(?!时))"
    r"|(?P<mw>MW(?![A-Za-z0-9_])|兆瓦(?!时))|(?P<gw>G[wW](?![A-Za-z0-9_])|吉瓦(?!时))|(?P<tw>TW(?![A-Za-z0-9_]))"
    # Rates and counts that take SI prefixes: 2400 TFLOPS, 2.4 PFLOPS, 1.2 exaflops; 400 TOPS (in
    # capitals: "tops" is a word); 2.1 GHz, 兆赫; 800 Gbps, 102.4 Tb/s (a small b is a bit, a big
    # B a byte: 1.2 TB/s is read by ``textsim``); 512 MB, 2 PB beside its GB and TB.
    rf"|{_prefixed('flops', r'(?:{p})FLOP[Ss]?|(?:{w})-?flops?', flags='(?i:', close=')')}"
    rf"|{_prefixed('ops', '(?:{p})OP[Ss]')}|{_prefixed('hz', '(?:{p})Hz|{z}')}"
    rf"|{_prefixed('bps', '(?:{p})(?:bps|b/s|bits?/s)')}|(?P<mb>MB)(?![A-Za-z0-9_])|(?P<pb>PB)(?![A-Za-z0-9_]))"
)
_LADDERS = (
    ("ms", "s", "min", "h", "d", "wk"),
    ("w", "kw", "mw", "gw", "tw"),
    ("wh", "kwh", "mwh", "gwh"),
    ("mb", "gb", "tb", "pb"),
    tuple(f"{prefix}flops" for prefix in _PREFIXES),
    tuple(f"{prefix}ops" for prefix in _PREFIXES),
    tuple(f"{prefix}hz" for prefix in _PREFIXES[:4]),
    tuple(f"{prefix}bps" for prefix in _PREFIXES),
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


def bit_rate(text: str, end: int) -> str | None:
    """The bit rate of a number whose ``gb``/``tb`` ends at ``end`` when written with a small b
    and a second after it (102.4 Tb/s is ``tbps``, as 102.4 Tbps); None for bytes (1.2 TB/s)
    or a size (a 16 Gb die)."""
    if text[end - 1 : end] == "b" and text[end : end + 2] == "/s":
        return f"{text[end - 2].lower()}bps"
    return None


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
