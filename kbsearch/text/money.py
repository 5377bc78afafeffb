"""Prices and discounts, read as figures by ``textsim.numbers``.

A lone digit is mostly a list marker, a step or a version ("3 steps", "Gemma 2") and
no figure; one written with a currency is a price: ``$3``, ``US$3``, ``¥4``, ``€2``,
``£5``, ``4元``, ``3 美元``, ``5 dollars``, ``3 USD``, ``$3/M tokens``, ``每百万 token
2 元`` (``priced_digits``). "Vega-Pro input price is now $3 (was $5)" against a record's
"$5" is a price cut, not a known claim.

A Chinese discount X折 is what is paid in tenths of the list price: 打六折 pays 60%, so
it takes 40% off. It reads as the percentage off (``discounts_read``): 打六折, 6折 and 六折
are ``40%``, as "cut by 40%", "40% off" and "下调 40%" are; 打四折 is ``60%``, 七五折 and
7.5折 ``25%``, 6.5折 ``35%``, 九五折 ``5%``. Chinese numerals and digits both.

A decimal's trailing zeros say nothing of the figure: ``$5.00`` is ``$5``, ``2.50`` is
``2.5`` (``trimmed``). Versions never get here: ``numbers`` skips them as labels.
"""

from __future__ import annotations

import re

from kbsearch.text.currencies import CHINESE, SYMBOLS, codes_pattern

# A currency before the digit (US$3, $3.00, ¥4, RMB 5, HKD 8) or after it (4元, 3 美元, 5 dollars, 3 USD, 6 港币).
# A $ that opens or closes LaTeX math is no dollar (a price's $ has no space after it):
# $5$, $4 \\times$, $1/\\epsilon$, $2^p$, $5-10\\%$, $1+o(1)$, "<$ 2".
# The rarer codes are matched in capitals only (``currencies``): "4 nok" or "2 sar" is no price.
_CODES = f"(?:USD|RMB|CNY|EUR|(?-i:{codes_pattern()}))"
_PRICED = re.compile(
    rf"(?:(?<![A-Za-z])(?:US|HK|NT|A|C|S)?\$|(?:[{SYMBOLS.replace('$', '')}]|(?<![A-Za-z]){_CODES})\s*)(\d)(?:\.0+)?"
    r"(?![\d.,]\d|\d|\s*(?:[$\\^_{}=<>+*]|-\s*[\d\\]|/[\s\d\\(]))"
    rf"|(?<![A-Za-z0-9_.@#§²³{SYMBOLS}-])(\d)(?:\.0+)?\s*(?:{'|'.join(CHINESE)}"
    rf"|(?:dollars?|euros?|yuan|{_CODES})(?![A-Za-z]))",
    re.IGNORECASE,
)


def priced_digits(text: str) -> set[str]:
    """The lone digits of ``text`` written as a price (see the module): ``$3`` gives ``3``."""
    return {match.group(1) or match.group(2) for match in _PRICED.finditer(text)}


_CN_DIGIT = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
# 六折, 七五折, 6折, 6.5折, 75折; not 一波三折, 三折叠, 五折交叉验证 (five-fold), 折扣, 折算, 折合, 折旧, 折中.
_DISCOUNT = re.compile(
    r"(?<![\d.零〇一二两三四五六七八九十百千万亿波])"
    r"([一二两三四五六七八九][一二三四五六七八九]?|[1-9](?:\.[1-9]|[1-9])?)"
    r"\s*折(?![叠扣算合旧中线返射腾服损页交])"
)


def discounts_read(text: str) -> str:
    """``text`` with each discount X折 rewritten as the percentage it takes off (打六折 → 打 40% )."""
    if "折" not in text:
        return text
    return _DISCOUNT.sub(_off, text)


def _off(match: re.Match[str]) -> str:
    written = match.group(1)
    if written[0] in _CN_DIGIT:
        tenths = [_CN_DIGIT[ch] for ch in written]
        paid = 10 * tenths[0] + (tenths[1] if len(tenths) > 1 else 0)
    elif "." in written:
        paid = round(10 * float(written))
    else:
        paid = 10 * int(written[0]) + (int(written[1]) if len(written) > 1 else 0)
    return f" {100 - paid}% "


def trimmed(value: str) -> str:
    """``value`` (digits) without a decimal's trailing zeros: ``5.00`` → ``5``, ``2.50`` → ``2.5``."""
    if "." not in value or value.count(".") > 1:
        return value
    return value.rstrip("0").rstrip(".")
