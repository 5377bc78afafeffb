"""A share written as a fraction in digits is the share in words: "只有长上下文方案的 1/12" is
十二分之一 and "costs 1/12 of the baseline", so it is also the 12x cut another writer gives as
"12 times less", "12x cheaper" or "降低 12 倍".

``spelled`` already reads 十二分之一 and "a tenth of" both ways (one part of N is the N-fold cut and
its percentage: ``spelled.share_in_digits``); "1/12" in digits was read as two bare numbers, 1 and 12,
or as a date (Jan 12) at the sentence's end, so a faithful retelling of "12 times less" had a new
figure. Only a fraction that the sentence gives as a share of something is read so: Chinese "B 的
1/N" or a cut to it (降至 1/10, 仅为 1/20, 只有 1/12), English "1/N of …", "1/N the cost", or "to 1/N".
Any other a/b keeps its digits: exponents (T^{2/3}), series (Landsat-8/9, CIFAR-10/100), scores
(12/15 datasets) and dates. "N times less" stays ``Nx`` as "N times faster" and 提速 N 倍 do.
"""

from __future__ import annotations

import re

from kbsearch.text.spelled import share_in_digits

# A fraction in digits, not part of a name, a series or a formula (^{2/3}, (1/T), 8/9, 1/4-MMS).
_FRACTION = re.compile(r"(?<![A-Za-z0-9_.^{(/\\-])(\d{1,3})\s*/\s*(\d{1,4})(?![\d./}%)-]|\s*[)）]|\^)")
# Chinese: "原框架的 1/10", a cut to it ("减少至 1/77", "仅为 1/20", "只有 1/12"); not a date (截至 1/12).
_CN_SHARED = re.compile(r"(?:的|(?<!截)[为到至成]|只有|仅有|仅用|只用|不到)\s*$")
# English: "1/12 of the cost", "1/12 the size", "cut to 1/12", "only 1/12".
_EN_OF_AFTER = re.compile(r"\s+(?:of|the|that\s+of|as\s+(?:much|many|large))\b", re.IGNORECASE)
_EN_CUT_TO = re.compile(r"\b(?:to|only|just|about|roughly|nearly|under|below)\s+$", re.IGNORECASE)
_DATED = re.compile(r"\b(?:on|since|until|from|as\s+of|dated|by)\s+$|\b\d{1,2}/\d{1,2}\s+to\s+$", re.IGNORECASE)


def fractions_read(text: str) -> str:
    """``text`` with each share written as a fraction in digits rewritten as ``spelled`` writes a
    share in words (… 的 1/12 → … 的 12x 8.3%; "1/4 of the tokens" → "25% of the tokens")."""
    if "/" not in text:
        return text
    return _FRACTION.sub(_read, text)


def _read(match: re.Match[str]) -> str:
    numerator, denominator = int(match.group(1)), int(match.group(2))
    if not 0 < numerator < denominator:
        return match.group(0)
    text, start = match.string, match.start()
    before = text[max(0, start - 12) : start]
    shared = (
        _CN_SHARED.search(before)
        or _EN_OF_AFTER.match(text, match.end())
        or (_EN_CUT_TO.search(before) and not _DATED.search(before))
    )
    return share_in_digits(numerator, denominator) if shared else match.group(0)
