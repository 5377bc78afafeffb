"""Figures written in words, rewritten in digits so that ``textsim.numbers`` reads them.

One writer puts "3x", another "三倍" or "three times faster"; "roughly a tenfold
smaller KV footprint" and "about 10x smaller" state one figure. Without this the
number reader saw a figure on one side only, and a faithful retelling in the other
language, or in the other style, counted as a claim with a new number.

Only words that state a figure are rewritten: a multiplier (倍, -fold, "N times
faster", "twice as"), or a percentage (百分之, percent). A count in words ("two
models", 两个模型) stays a word: a lone count is no result, and rewriting it would
only add figures that one side spells and the other omits.
"""

from __future__ import annotations

import re

_EN_SMALL = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
]  # fmt: skip
_EN_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_EN_VALUE = {word: value for value, word in enumerate(_EN_SMALL)} | {
    word: 20 + 10 * n for n, word in enumerate(_EN_TENS)
}
_EN_WORD = (
    rf"(?:(?:{'|'.join(_EN_TENS)})(?:[- ](?:{'|'.join(_EN_SMALL[1:10])}))?"
    rf"|(?:a |one )?hundred|(?:a |one )?thousand|{'|'.join(_EN_SMALL[2:])})"
)
_AMOUNT = rf"(\d+(?:\.\d+)?|{_EN_WORD})"
_COMPARED = (
    r"faster|slower|smaller|larger|bigger|higher|lower|more|less|fewer|longer|shorter|cheaper|"
    r"greater|as|the|over|that|of"
)
_FOLD = re.compile(rf"\b{_AMOUNT}[- ]?fold\b(?![- ]?(?:cross|cv\b|validation))", re.IGNORECASE)
_TIMES = re.compile(rf"\b{_AMOUNT}\s+times\s+(?=(?:{_COMPARED})\b)", re.IGNORECASE)
# "cut by about ten times": after "by" a number of times is a multiplier, whatever follows.
_BY_TIMES = re.compile(
    rf"(?<=\bby )((?:about |roughly |nearly |around |almost |over |up to |more than )?){_AMOUNT}\s+times\b",
    re.IGNORECASE,
)
_TWICE = re.compile(r"\btwice\s+(?=(?:as|the)\b)", re.IGNORECASE)
_PERCENT = re.compile(rf"\b{_AMOUNT}\s*(?:percent|per cent)\b", re.IGNORECASE)

_EN_CUE = re.compile(r"fold|times|twice|per ?cent", re.IGNORECASE)
"""Words without which no English figure in words is read: most texts skip every pattern."""

_CN_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNIT = {"十": 10, "百": 100, "千": 1000}
_CN_NUMERAL = r"[零〇一二两三四五六七八九十百千万]+(?:点[零〇一二三四五六七八九]+)?"
_CN_TIMES = re.compile(rf"({_CN_NUMERAL})(?=\s*[多余]?倍)")
_CN_PERCENT = re.compile(rf"百分之\s*({_CN_NUMERAL}|\d+(?:\.\d+)?)")


def spelled_out(text: str) -> str:
    """``text`` with each figure written in words rewritten in digits (三倍 → 3倍,
    tenfold → 10x, three times faster → 3x faster, by ten times → by 10x, 百分之三十 → 30%,
    40 percent → 40%)."""
    if _EN_CUE.search(text):
        text = _english(text)
    if "倍" in text or "百分之" in text:
        text = _chinese(text)
    return text


def _english(text: str) -> str:
    text = _FOLD.sub(lambda m: _en(m.group(1)) + "x", text)
    text = _TIMES.sub(lambda m: _en(m.group(1)) + "x ", text)
    text = _BY_TIMES.sub(lambda m: m.group(1) + _en(m.group(2)) + "x", text)
    text = _TWICE.sub("2x ", text)
    return _PERCENT.sub(lambda m: _en(m.group(1)) + "%", text)


def _chinese(text: str) -> str:
    text = _CN_TIMES.sub(lambda m: _cn(m.group(1)), text)
    return _CN_PERCENT.sub(lambda m: _cn(m.group(1)) + "%", text)


def _en(amount: str) -> str:
    """The digits of an English amount as ``_AMOUNT`` matches it (digits, or its words)."""
    if amount[0].isdigit():
        return amount
    words = amount.lower().replace("-", " ").split()
    if words[-1] in ("hundred", "thousand"):
        return "100" if words[-1] == "hundred" else "1000"
    return str(sum(_EN_VALUE[word] for word in words))


def _cn(numeral: str) -> str:
    """The digits of a Chinese numeral (三 → 3, 二十五 → 25, 一点五 → 1.5); one that reads
    as no single number (三四, "three or four") is kept as written."""
    if numeral[0].isdigit():
        return numeral
    whole, _, fraction = numeral.partition("点")
    value = _cn_integer(whole)
    if value is None:
        return numeral
    if not fraction:
        return str(value)
    return f"{value}." + "".join(str(_CN_DIGIT[ch]) for ch in fraction)


def _cn_integer(numeral: str) -> int | None:
    total = section = 0
    digit: int | None = None
    for ch in numeral:
        if ch in _CN_DIGIT:
            if digit is not None and digit != 0 and _CN_DIGIT[ch] != 0:
                return None  # two digits in a row: a range (三四倍), not one number
            digit = _CN_DIGIT[ch]
        elif ch in _CN_UNIT:
            section += (digit if digit else 1) * _CN_UNIT[ch]
            digit = None
        else:  # 万
            total += (section + (digit or 0)) * 10_000
            section, digit = 0, None
    return total + section + (digit or 0)
