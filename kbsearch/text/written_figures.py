"""A figure as its writer wrote it, for messages: "within 14 days", not the key ``2wk`` that
``textsim.numbers`` compares by; "a success rate of 0.73", not ``73%``.

The keys stay what ``--json`` gives (``new_numbers``, ``extra_numbers``); a reason line shows each
as written in the claim it came from, or the key when the claim does not write it in digits
(a figure in words: "tenfold").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kbsearch.text.textsim import numbers

# Where a written figure can start: a number's first digit, not inside a name (FP8 is ``8bit``, not
# "8"), or a Chinese numeral (百分之十二).
_START = re.compile(r"(?<![\d.,A-Za-z])\d|(?<![零〇一二两三四五六七八九十百千万亿之])[零〇一二两三四五六七八九十百]")
_LONGEST = 24
"""Characters a figure with its unit is written in at most ("1,048,576 tokens", "百分之七十三")."""
_CONTEXT = 48
"""Characters before it that can make it what it is (a share's "success rate of": ``shares``)."""
# A range's first number, written with the second's unit ("26-30%" is 26% and 30%): read up to its end.
_RANGED = re.compile(r"\d[\d.,]*\s*(?:[-–—~～]|to|至|到)\s*", re.IGNORECASE)
_RANGE_BEFORE = re.compile(r"\d[\d.,]*\s*(?:[-–—~～]|to|至|到)\s*$", re.IGNORECASE)
_LATIN = re.compile(r"[A-Za-z0-9]")
# A name carrying a number (FP4, INT8, H200): no figure's stretch runs over it, or "0.3 adds FP4"
# would be shown for the FP4 a claim's "FlashInfer 0.3 adds FP4" gives.
_NAME_WITH_DIGITS = re.compile(r"(?<![A-Za-z0-9.])[A-Za-z]+(?=\d)")


def as_written(text: str, figures: Iterable[str]) -> list[str]:
    """Each of ``figures`` (keys in ``numbers``' spelling) as ``text`` writes it, in order."""
    return [written(text, figure) for figure in figures]


def written(text: str, figure: str) -> str:
    """The shortest stretch of ``text`` from a number's start, before the next number's, that reads
    as ``figure`` (with the words before it, which can make a fraction a share), or ``figure``
    itself if none does. A range's first number is read up to the range's end only when no number
    reads as it alone: "26-30%" for 26%, and "8k" for the 8k of "from 600 to 8k"."""
    starts = [m.start() for m in _START.finditer(text)]
    stops = sorted(starts + [m.start() for m in _NAME_WITH_DIGITS.finditer(text)])
    for whole_ranges in (False, True):
        for start in starts:
            later = (s for s in stops if s > start and not (whole_ranges and _RANGED.fullmatch(text, start, s)))
            found = _read_from(text, start, next(later, len(text)), figure)
            if found is not None:
                return found
    return figure


def _read_from(text: str, start: int, following: int, figure: str) -> str | None:
    lead = text[max(0, start - _CONTEXT) : start]
    if ranged := _RANGE_BEFORE.search(lead):
        lead = lead[: ranged.start()]  # a range's second number: its first one's figure is not this one's
    if figure in numbers(lead):
        return None
    for end in range(start + 1, min(following, start + _LONGEST) + 1):
        if not _splits_a_word(text, end) and figure in numbers(lead + text[start:end]):
            return text[start:end].strip()
    return None


def _splits_a_word(text: str, end: int) -> bool:
    """Whether ``end`` falls inside a Latin word or a number ("14 da|ys", "0.7|3")."""
    return end < len(text) and bool(_LATIN.match(text[end - 1])) and bool(_LATIN.match(text[end]))
