"""Figures a query writes in Chinese number words, read as records write them.

A query ``百分之四十 显存`` or ``四成 显存`` asks for the record that says
``显存减少40%``, ``三倍 吞吐`` (or ``两倍``) for the one that says ``3x`` (``2x``).
The query's words are read into the figure (``read_figures``: ``40%``, ``3x``),
so the figure is one query term, as ``3 倍`` already is (``kbsearch.text.figures``);
and each is a ``FigureForm``, the figure's forms the way ``kbsearch.text.terms``
gives a term's: a record that writes the words (``百分之四十``, ``四成``) holds it too
(``kbsearch.search.expansion``).

Read: ``百分之`` + a numeral, a numeral + ``倍`` (two or more: ``一倍`` after 提升
is "doubled"), one to ten + ``成`` (not 成本, 成员, 一成不变). A range (三四倍) is no figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from kbsearch.text.folding import fold
from kbsearch.text.spelled import chinese_number
from kbsearch.text.terms import Form

_NUMERAL_CHARS = "零〇一二两三四五六七八九十百千点"
_NUMERAL = r"[零〇一二两三四五六七八九十百千]+(?:点[零〇一二三四五六七八九]+)?"
_NOT_A_SHARE = "本员功为果熟立绩型品就分长效交像形败不"
_WORDS = re.compile(
    rf"(?<![{_NUMERAL_CHARS}])(?:百分之\s*({_NUMERAL})|({_NUMERAL})\s*倍|({_NUMERAL})成(?![{_NOT_A_SHARE}{_NUMERAL_CHARS}]))"
)
_DIGITS = "零一二三四五六七八九"
_FIGURE = re.compile(r"\d+(?:\.\d+)?[x%]")


@dataclass(frozen=True)
class FigureForm(Form):
    """A figure the query writes in words: ``written`` is the figure (``40%``), ``forms`` it and its words."""

    @property
    def pattern(self) -> re.Pattern[str]:
        """Any of the figure's forms, not inside a longer figure (``1.3x``, ``140%``, ``十三倍``)."""
        return _pattern(self.forms)


def figure_words(query: str) -> list[tuple[str, FigureForm]]:
    """Each figure ``query`` writes in Chinese number words: (the words as written, its ``FigureForm``)."""
    found: list[tuple[str, FigureForm]] = []
    for match in _WORDS.finditer(query):
        figure = _figure(match)
        if figure is not None:
            words = fold(match.group(0))
            forms = (figure, *dict.fromkeys(w for w in (words.replace(" ", ""), *_words_of(figure)) if w != figure))
            found.append((match.group(0), FigureForm(figure, forms)))
    return found


def read_figures(query: str) -> str:
    """``query`` with each figure in Chinese number words written as the figure (百分之四十 → 40%)."""
    for words, form in figure_words(query):
        query = query.replace(words, f" {form.written} ", 1)
    return query


def holds(text: str, term: str) -> bool:
    """Whether ``text`` holds the query term ``term``; a figure (``40%``, ``3x``) only whole, not inside a
    longer one (``140%``, ``0.40%``, ``13x``, ``1.3x``), or ``三倍`` would find ``13 倍`` as ``40%`` finds ``140%``."""
    return term in text and (not _FIGURE.fullmatch(term) or _pattern((term,)).search(text) is not None)


def _figure(match: re.Match[str]) -> str | None:
    percent, times, tenths = match.groups()
    value = chinese_number(percent or times or tenths)
    if not value.replace(".", "", 1).isdigit():
        return None  # a range (三四倍)
    if percent:
        return f"{value}%"
    if times:
        return f"{value}x" if float(value) > 1 else None
    return f"{int(value) * 10}%" if value.isdigit() and 1 <= int(value) <= 10 else None


def _words_of(figure: str) -> list[str]:
    """The Chinese words records write for a whole figure (40% → 百分之四十, 四成; 2x → 二倍, 两倍)."""
    number, unit = figure[:-1], figure[-1]
    if not number.isdigit() or not 0 < int(number) <= 100:
        return []
    n = int(number)
    numeral = "一百" if n == 100 else _numeral(n)
    if unit == "x":
        return [f"{numeral}倍"] + (["两倍"] if n == 2 else [])
    shares = [f"{_numeral(n // 10) if n < 100 else '十'}成"] if n % 10 == 0 else []
    return [f"百分之{numeral}", *shares, *(["两成"] if n == 20 else [])]


def _numeral(n: int) -> str:
    if n < 10:
        return _DIGITS[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else _DIGITS[tens]) + "十" + (_DIGITS[ones] if ones else "")


@cache
def _pattern(forms: tuple[str, ...]) -> re.Pattern[str]:
    def one(form: str) -> str:
        before = r"(?<![0-9a-z.])" if form[0].isdigit() else rf"(?<![{_NUMERAL_CHARS}])"
        after = r"(?![0-9a-z])" if form[-1].isascii() else rf"(?![{_NUMERAL_CHARS}])"
        return before + re.escape(form) + after

    return re.compile("|".join(one(form) for form in sorted(forms, key=len, reverse=True)))
