"""Figures written in words, rewritten in digits so that ``textsim.numbers`` reads them.

One writer puts "3x", another "三倍" or "three times faster"; "roughly a tenfold
smaller KV footprint" and "about 10x smaller" state one figure. Without this the
number reader saw a figure on one side only, and a faithful retelling in the other
language, or in the other style, counted as a claim with a new number.

Only words that state a figure are rewritten: a multiplier (倍, -fold, "N times
faster", "twice as", an order of magnitude, 翻倍, doubled), a percentage (百分之,
percent), or a share (half, 三分之一, a tenth of). A count in words ("two models",
两个模型) stays a word: a lone count is no result, and rewriting it would only add
figures that one side spells and the other omits.

A share of one part reads both ways, since writers say it both ways: "halves the
memory" is 2x and 50% (one writes "2x less memory", another "显存减少50%"), and
降到十分之一 is 10x and 10%. A share of more parts (三分之二, two thirds of) is a
percentage only. Vague sizes (orders of magnitude, 几个数量级) and ranges (1-3个
数量级, 三四倍) state no single figure and stay words.
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
# "one to two orders of magnitude" and "1-3 orders" are ranges: no single figure.
_ORDERS = re.compile(
    r"(?<![-–~])(?<!to )(?<!or )\b(an|one|two|three|four|[1-4])\s+orders?\s+of\s+magnitude\b", re.IGNORECASE
)
# The verb only: "doubly robust", "the doubling dimension" and "knowledge triples" state no figure.
_MULTIPLIED = re.compile(r"\b(doubl|tripl|quadrupl)(?:ed\b|(?:es|ing)\s+(?=(?:the|its|their|our)\b))", re.IGNORECASE)
_MULTIPLIER = {"doubl": 2, "tripl": 3, "quadrupl": 4}
_HALVED = re.compile(
    r"\bhalv(?:ed\b|(?:e|es|ing)\s+(?=(?:the|its|their|our)\b))"
    r"|\b(?:in|by)\s+(?:about |roughly |nearly |almost |around |over |more than )?half\b(?![- ]precision)",
    re.IGNORECASE,
)
_EN_DENOMINATOR = {"half": 2, "third": 3, "quarter": 4, "fifth": 5, "tenth": 10, "hundredth": 100}
# Only "half" stands without a count: "the third of four steps" is an ordinal. A half
# that places ("the second half of the layers", "the other half") is no share either.
_PLACED = ("first", "second", "other", "latter", "former", "upper", "lower", "top", "bottom")
_EN_SHARE = re.compile(
    rf"\b(?:(a|one|two|three|four|nine)[- ]({'|'.join(_EN_DENOMINATOR)})s?"
    rf"|{''.join(f'(?<!{word} )' for word in _PLACED)}(half))\s+(?=(?:of|the)\b)",
    re.IGNORECASE,
)

_EN_CUE = re.compile(
    r"fold|times|twice|per ?cent|magnitude|half|halv|doubl|tripl|quadrupl|thirds?\b|quarters?\b|tenths?\b|fifths?\b",
    re.IGNORECASE,
)
"""Words without which no English figure in words is read: most texts skip every pattern."""

_CN_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNIT = {"十": 10, "百": 100, "千": 1000}
_CN_NUMERAL = r"[零〇一二两三四五六七八九十百千万]+(?:点[零〇一二三四五六七八九]+)?"
_CN_TIMES = re.compile(rf"({_CN_NUMERAL})(?=\s*[多余]?倍)")
_CN_PERCENT = re.compile(rf"百分之\s*({_CN_NUMERAL}|\d+(?:\.\d+)?)")
# 几个/数个/多个数量级 and 1-3个数量级 are vague or ranges.
_CN_ORDERS = re.compile(r"(?<![\d\-–~至到])([一二两三四1-4])个数量级")
# 提升一倍 and 翻了一番 are "doubled": 一倍 read alone would be 1x. 翻两番 doubles twice. So is 一倍
# after any word of growth or comparison (扩大一倍, 快一倍, 高出一倍, 涨了一倍), as "doubled" and 翻倍 are.
_CN_DOUBLED = re.compile(r"翻倍|翻了?一番|(?<=[提升高加长翻大涨增多快出])了?一倍")
_CN_QUADRUPLED = re.compile(r"翻了?两番")
_CN_HALVED = re.compile(r"减半|砍半|(?:减少|降低|缩减|缩短|下降|缩小|节省|节约|降|减)了?(?:约|近|将近|大约)?一半")
_CN_HALF = ("一半", "半数", "过半")
# 过半 but not 通过半 (通过半结构化访谈: "through semi-structured interviews").
_CN_SHARE = re.compile(rf"({_CN_NUMERAL}|\d+)分之\s*({_CN_NUMERAL}|\d+)|一半|半数|(?<!通)过半")
# A half a figure is cut to (降到一半, 仅为 DCGAN 的一半, "uses half the memory") is also the
# 2x cut; a half of a group (有一半的 server, 半数客户端, "half of the test images") is 50% only.
_CN_CUT_TO = re.compile(r"(?:[为到至成]|只有|仅有)(?:[^，,。；;]{0,12}?的)?\s*$")
_EN_CUT_TO = re.compile(r"\b(?:to|is|are|was|were|uses?|used|needs?|needed|requires?|required|only|just)\s+$", re.I)
_CN_CUES = ("倍", "分之", "数量级", "半", "番")


# A half in words, whatever it measures: "CPU 开销减少约一半", "pricing by half", "显存减半".
_ANY_HALF = re.compile(
    rf"{_HALVED.pattern}|{_CN_HALVED.pattern}|{'|'.join(_CN_HALF)}|\bhalf\s+(?=(?:of|the)\b)", re.IGNORECASE
)


def halves_unread(text: str) -> str:
    """``text`` with each half in words blanked, for the figures two records share as
    evidence of one item: a half rewritten is two figures (2x and 50%), and a price cut
    "by half" then shared two with a memory "减半" and a CPU cost "减少约一半" (probe 10,
    three different items merged by audit). A half is said of anything; the claims'
    new-figure reading keeps it (``spelled_out``), so a retold half is no new figure."""
    return _ANY_HALF.sub(" ", text) if _EN_CUE.search(text) or "半" in text else text


def spelled_out(text: str) -> str:
    """``text`` with each figure written in words rewritten in digits (三倍 → 3倍,
    tenfold → 10x, three times faster → 3x faster, by ten times → by 10x, 百分之三十 → 30%,
    40 percent → 40%)."""
    if _EN_CUE.search(text):
        text = _english(text)
    if any(cue in text for cue in _CN_CUES):
        text = _chinese(text)
    return text


def _english(text: str) -> str:
    text = _FOLD.sub(lambda m: _en(m.group(1)) + "x", text)
    text = _TIMES.sub(lambda m: _en(m.group(1)) + "x ", text)
    text = _BY_TIMES.sub(lambda m: m.group(1) + _en(m.group(2)) + "x", text)
    text = _TWICE.sub("2x ", text)
    text = _ORDERS.sub(lambda m: f"{10 ** _count(m.group(1))}x", text)
    text = _MULTIPLIED.sub(lambda m: f" {_MULTIPLIER[m.group(1).lower()]}x ", text)
    text = _HALVED.sub(_share(1, 2), text)
    text = _EN_SHARE.sub(_en_share, text)
    return _PERCENT.sub(lambda m: _en(m.group(1)) + "%", text)


def _chinese(text: str) -> str:
    text = _CN_ORDERS.sub(lambda m: f" {10 ** int(_cn(m.group(1)))}x ", text)
    text = _CN_QUADRUPLED.sub(" 4x ", _CN_DOUBLED.sub(" 2x ", text))
    text = _CN_HALVED.sub(_share(1, 2), text)
    text = _CN_PERCENT.sub(lambda m: _cn(m.group(1)) + "%", text)
    text = _CN_SHARE.sub(_cn_share, text)
    return _CN_TIMES.sub(lambda m: _cn(m.group(1)), text)


def _share(numerator: int, denominator: int) -> str:
    """A share in digits: a percentage, and for one part of N (half, 十分之一) the N-fold
    cut it also is, since one writer says "显存减半" and another "2x less memory"."""
    percent = f"{round(100 * numerator / denominator, 1):g}%"
    return f" {denominator}x {percent} " if numerator == 1 else f" {percent} "


def share_in_digits(numerator: int, denominator: int) -> str:
    """A share as ``spelled_out`` writes it (one part of N: " Nx P% "; more parts: " P% "), for a
    share another module reads (``digit_shares``: 1/12 in digits)."""
    return _share(numerator, denominator)


def _cn_share(match: re.Match[str]) -> str:
    if match.group(0) in _CN_HALF:
        return _half(match, _CN_CUT_TO)
    denominator, numerator = _cn(match.group(1)), _cn(match.group(2))
    if not (denominator.isdigit() and numerator.isdigit()) or int(denominator) == 0:
        return match.group(0)  # a range (三四分之一) reads as no single share
    return _share(int(numerator), int(denominator))


def _half(match: re.Match[str], cut_to: re.Pattern[str]) -> str:
    """A half in words: the 2x cut and 50% when a figure is cut to it (``cut_to`` the words
    before it), else a share of a group, 50% only ("server 中有一半已修复" is no 2x)."""
    before = match.string[max(0, match.start() - 16) : match.start()]
    return _share(1, 2) if cut_to.search(before) else " 50% "


def _count(word: str) -> int:
    """How many a count word says: "a", "an" and "one" are 1; digits and other words as ``_en``."""
    return 1 if word.lower() in ("a", "an", "one") else int(_en(word))


def _en_share(match: re.Match[str]) -> str:
    if match.group(3):
        return _half(match, _EN_CUT_TO)
    return _share(_count(match.group(1)), _EN_DENOMINATOR[match.group(2).lower()])


def _en(amount: str) -> str:
    """The digits of an English amount as ``_AMOUNT`` matches it (digits, or its words)."""
    if amount[0].isdigit():
        return amount
    words = amount.lower().replace("-", " ").split()
    if words[-1] in ("hundred", "thousand"):
        return "100" if words[-1] == "hundred" else "1000"
    return str(sum(_EN_VALUE[word] for word in words))


def english_number(amount: str) -> str:
    """The digits of an English amount (three → 3, twenty-five → 25; digits as written)."""
    return _en(amount)


def chinese_number(numeral: str) -> str:
    """The digits of a Chinese numeral, as ``spelled_out`` reads them (三 → 3, 一点五 → 1.5);
    one that reads as no single number (三四) is kept as written."""
    return _cn(numeral)


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
