"""A claim's figure that is a change the record states, written another way (issue 25).

The record says "accuracy rose from 31.86% to 39.80%" (准确率从 31.86% 提升至 39.80%) and
the claim "improves accuracy by 7.94%" (提升 7.94 个百分点); the record "latency from
120 ms to 40 ms" and the claim "3x lower latency" (降低 67%). The claim's figure is the
difference, the ratio or the percent change of the two ends of that change: the same fact,
no new number.

Kept narrow: only a pair the record sets as a change ("from X to Y", X → Y, 从 X 提升至 Y,
"X vs Y"), both ends of one unit (a percentage, ms, s, GB, or a count with the same word
after it, 400 → 1,000 tokens/s), the claim's figure within its own rounding (and 5%) of
what the pair gives. Two figures the record does not set against each other never count,
nor a change of a count of accelerators (8 → 12 GPUs is no "4 GPUs"), nor of a speed-up.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal
from functools import lru_cache

from kbsearch.text.quantities import figure_value
from kbsearch.text.textsim import numbers

# A figure with its unit as written (a count's magnitude too: 1.8k, 6.3万).
_NUM = (
    r"\d[\d,]*(?:\.\d+)?\s*(?:个?百分点|个点|毫秒|秒|倍|万|亿|%|×"
    r"|(?:percentage\s+points?|points?|pts?|pp|ms|s|x|gb|tb|k|m|b)(?![A-Za-z]))?"
)
_WORD = r"(?:\s*(?!to\b|vs\b|versus\b)[A-Za-z][A-Za-z/-]*)?"  # what a change's start counts: its end's word
_CHANGE = re.compile(
    rf"\bfrom\s+(?P<a>{_NUM}){_WORD}\s+to\s+(?P<b>{_NUM})"
    rf"|(?P<c>{_NUM}){_WORD}\s*(?:→|->|⟶|=>)\s*(?P<d>{_NUM})"
    rf"|(?P<e>{_NUM}){_WORD}\s*(?:vs\.?|versus)\s*(?P<f>{_NUM})"
    rf"|[从由]\s*(?P<g>{_NUM}){_WORD}\s*(?:提升|提高|增加|增长|上升|升|降低|下降|减少|降|缩短|缩减|压缩|涨)?\s*(?:到|至|为|成)"
    rf"\s*(?P<h>{_NUM})",
    re.IGNORECASE,
)
_CLAIMED = re.compile(rf"(?<![A-Za-z0-9_.@#§-]){_NUM}", re.IGNORECASE)
_SPLIT = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(.*)", re.DOTALL)
_WORD_AFTER = re.compile(r"\s*(?:个|张|台)?\s*([A-Za-z][A-Za-z/-]*|[\u4e00-\u9fff])")
_POINTS = re.compile(r"个?百分点|个点|pp|pts?|points?|percentage\s+points?", re.IGNORECASE)
_HARDWARE = re.compile(r"[A-Z]\d{2,3}|gpus?|cards?|nodes?|servers?|卡|张|台", re.IGNORECASE)
# The units a difference of two ends is written in; a speed-up's change is no figure of one.
_MEASURED = frozenset({"%", "ms", "s", "gb", "tb"})
_WITHIN = Decimal("0.05")
_MAGNITUDE = frozenset({"k", "m", "b", "万", "亿"})

Figure = tuple[str, Decimal, str, str]
"""A figure in ``numbers``' spelling, its value, its unit and, for one without a unit, the
word written after it (``tokens/s``; ``points`` for 个百分点 and pp)."""


def _figure(written: str, text: str, end: int, unit_text: str | None = None) -> Figure | None:
    """The figure ``written`` (``7.94 个百分点``, ``120 ms``) ending at ``end`` of ``text``;
    ``unit_text`` for a start of a change written bare ("from 120 to 40 ms")."""
    split = _SPLIT.match(written.strip())
    if split is None:
        return None
    value, unit = split.group(1), split.group(2).strip()
    unit = unit or (unit_text or "")
    if _POINTS.fullmatch(unit):
        word, unit = "points", ""
    else:
        after = _WORD_AFTER.match(text, end)
        word = after.group(1).lower() if after else ""
    found = numbers(f"{value}{unit}") or numbers(value)
    if len(found) != 1:
        return None
    spelled = next(iter(found))
    parsed = figure_value(spelled)
    if parsed is None:
        return None
    return spelled, parsed[0], parsed[1], "" if parsed[1] else word


def _unit_of(written: str) -> str:
    """The unit written after a figure; a magnitude (1.8k, 6.3万) is no unit of the other end."""
    split = _SPLIT.match(written.strip())
    unit = split.group(2).strip() if split else ""
    return "" if unit.lower() in _MAGNITUDE else unit


@lru_cache(maxsize=4096)  # a record's text is read against every claim
def change_pairs(text: str) -> tuple[tuple[Figure, Figure], ...]:
    """The changes ``text`` sets (start, end), both ends of one unit, in the order written."""
    pairs = []
    for match in _CHANGE.finditer(text):
        start_name, end_name = (name for name, group in match.groupdict().items() if group is not None)
        start, end = match.group(start_name), match.group(end_name)
        end_figure = _figure(end, text, match.end(end_name))
        start_figure = _figure(start, text, match.end(start_name), _unit_of(start) or _unit_of(end))
        if start_figure is None or end_figure is None or start_figure[2] != end_figure[2]:
            continue
        unit, word = end_figure[2:]
        if unit == "x" or (not unit and (not word or _HARDWARE.fullmatch(word))):
            continue  # a speed-up's change, a bare number or a count of accelerators
        pairs.append((start_figure, end_figure))
    return tuple(pairs)


def _within_rounding(claimed: Figure, value: Decimal) -> bool:
    """Whether ``value`` rounded as the claim writes its figure (to its last digit) is the
    claim's figure, and within 5% of it: "3x" is no ratio of 2.6."""
    spelled, figure, _, _ = claimed
    if figure <= 0 or abs(value - figure) > figure * _WITHIN:
        return False
    written = re.match(r"\d+(?:\.\d+)?", spelled)
    mantissa = Decimal(written.group(0)) if written else figure
    places = len(written.group(0).partition(".")[2]) if written else 0
    last_digit = Decimal(1).scaleb(-places) * figure / mantissa  # 1.2k: a hundred
    return abs(value - figure) <= last_digit / 2


def _derives(claimed: Figure, pair: tuple[Figure, Figure]) -> bool:
    """Whether the claimed figure is the pair's difference, ratio or percent change."""
    (_, a, unit, _), (_, b, _, word) = pair  # the end's word: "from 1,200 to 1.8k tokens/s"
    _, _, claimed_unit, claimed_word = claimed
    difference = abs(b - a)
    values = []
    if (unit in _MEASURED and claimed_unit == unit) or (unit == "" and claimed_unit == "" and claimed_word == word):
        values.append(difference)
    if unit == "%" and claimed_unit == "" and claimed_word == "points":
        values.append(difference)
    low, high = sorted((a, b))
    if claimed_unit == "x" and low > 0:
        values.append(high / low)
    if claimed_unit == "%" and low > 0:
        values.extend((difference / a * 100 if a else Decimal(-1), difference / b * 100 if b else Decimal(-1)))
    return any(_within_rounding(claimed, v) for v in values)


def derived_figures(claim: str, texts: Iterable[str]) -> set[str]:
    """The claim's figures (in ``numbers``' spelling) that are a change one of ``texts``
    states, written as its difference, ratio or percent change (see the module)."""
    pairs = [pair for text in texts for pair in change_pairs(text)]
    if not pairs:
        return set()
    claimed = (_figure(m.group(0), claim, m.end()) for m in _CLAIMED.finditer(claim))
    return {c[0] for c in claimed if c is not None and any(_derives(c, pair) for pair in pairs)}
