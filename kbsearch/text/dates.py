"""Dates as figures of their own kind: the day, month or quarter a text states.

``textsim.numbers`` leaves dates out (2027-08-01 is no count of 2027), so a claim that moved
a date ("适用日由 2027年8月1日 推迟至 2028年2月1日"), gave another one ("effective 2027年4月1日"
against "comments until 2027-04-15") or a new one ("fix deployed 2027-02-27") read as known
(issue 25, probe 35). Here a date is the span of days it names, whatever its spelling:
2027-08-01, 2027/8/1, 2027年8月1日, August 1, 2027, 1 Aug 2027 (a day); Aug 2027, 2027年8月,
2027-08 (a month: a month's two digits after the year, so "2019-20" is no month); Q3 2027,
2027 Q3, 2027年第三季度, 三季度 (a quarter). Chinese reads the same spaced or not (2027 年 8 月
1 日, 2027 年 8 月, 第 3 季度: writers mix both), and a Chinese month alone (8 月, 12月初) is a
month of no year (``CHINESE_DATE``, the one spelling ``textsim.numbers`` leaves out of the
figures too). Two dates are one when one span holds the other (a record's 2027-08-01 is its
"Q3 2027" written finer); a date written without its year matches that month and day (or
quarter) of any year, and a month alone is news only against another date the records write.

Not read: a bare year (2027 年度报告), a span of months (3 年 11 个月, 近 3 月, 前 11 月, 1-11 月),
a month and day written with a dash or a slash ("3-2",
"11/03": an earlier day's anchor as often as a date), and any date written as an earlier day's
note ("9-16锚定", ``anchors.EARLIER_DAY_NOTE``).
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass

from kbsearch.text.anchors import EARLIER_DAY_NOTE

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sept", "sep"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
# Capitalized only: "may" and "march" are words too.
_MONTH = r"(?P<month_name>(?-i:" + "|".join(sorted((m.title() for m in _MONTHS), key=len, reverse=True)) + r")\.?)"
_DAY = r"(?:0?[1-9]|[12]\d|3[01])"
# A month alone is no month after words that make it a span or a rank ("每 3 月", "近 3 月",
# "前 11 月", "第 11 月"), after a year that is no date's ("3 年 11 月", a duration) or after a
# range's dash ("1-11 月"): its digits stay figures.
_NOT_BEFORE_MONTH = r"每近前后满共约第去来续年~～–\-"
CHINESE_DATE = (
    r"(?:(?<![\d.])(?:19|20)\d\d\s*年\s*"
    rf"|(?<![\d.{_NOT_BEFORE_MONTH}])(?<![{_NOT_BEFORE_MONTH}]\s))"
    r"(?:0?[1-9]|1[0-2])\s*月"
    rf"(?:\s*{_DAY}\s*[日号]|(?<=月){_DAY}(?![\d.%倍个万亿千百])|\s*(?:上旬|中旬|下旬|初|底|末))?"
)
"""A date written in Chinese, spaced or not: 2026年11月3日, 2026 年 11 月 3 日, 2026 年 11 月,
11 月 3 号, 11月3 and a month alone (11 月, 12月初, 11 月份). The one spelling of the Chinese
date that ``dates`` reads and ``textsim.numbers`` leaves out of the figures; no groups, so it
fits in any pattern. A day written apart from its month needs its 日 or 号: in "11 月 30%" the
30 is a figure."""
_CHINESE_PARTS = re.compile(r"(?:(\d{4})\s*年)?\s*(\d{1,2})\s*月\s*(\d{1,2})?\s*(上旬|中旬|下旬|初|底|末)?")
# A part of a month is the days it names (上旬 1-10, 中旬 11-20, 下旬 21 to the month's end; 初 and
# 底/末, early and late, read as 上旬 and 下旬): "代码已于 3 月 7 日放出" gives a day outside a
# record's "预计 3 月下旬放出", a changed date, where the whole month held it.
_PART_DAYS = {"上旬": (1, 10), "初": (1, 10), "early": (1, 10), "中旬": (11, 20), "mid": (11, 20)}
_PART_DAYS |= dict.fromkeys(("下旬", "底", "末", "late"), (21, 31))
_QUARTER_CN = {"一": 1, "二": 2, "三": 3, "四": 4, "1": 1, "2": 2, "3": 3, "4": 4}
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DATES = re.compile(
    "|".join(
        (
            rf"(?<![\d.])(?P<iso>{_YEAR}[-/.](?P<iso_month>\d{{1,2}})[-/.](?P<iso_day>\d{{1,2}}))(?![\d])",
            r"(?<![\d.])(?P<ym_year>(?:19|20)\d\d)[-/](?P<ym_month>0[1-9]|1[0-2])(?![\d./-])",
            rf"(?P<cn>{CHINESE_DATE})",
            rf"\b{_MONTH}\s+(?P<en_day>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?P<en_year>(?:19|20)\d\d))?",
            rf"\b(?P<day_first>\d{{1,2}})\s+{_MONTH.replace('month_name', 'dm_month')}\s+(?P<dm_year>(?:19|20)\d\d)\b",
            rf"(?:\b(?P<m_part>early|mid|late)[- ]?)?"
            rf"\b{_MONTH.replace('month_name', 'm_month')}\s+(?P<m_year>(?:19|20)\d\d)\b",
            r"\b[Qq](?P<q>[1-4])\s+(?P<q_year>(?:19|20)\d\d)\b",
            r"\b(?P<yq_year>(?:19|20)\d\d)\s*[Qq](?P<yq>[1-4])\b",
            r"(?:(?P<cq_year>(?:19|20)\d\d)\s*年?\s*)?第?\s*(?P<cq>[一二三四1-4])\s*季度",
        )
    ),
    re.IGNORECASE,
)
_NOTE_AT = re.compile(EARLIER_DAY_NOTE)


@dataclass(frozen=True)
class Dated:
    """The span of days a date names; ``year`` None when it is written without one (the
    span is then read in a leap year, so 2月29日 is a day)."""

    first: dt.date
    last: dt.date
    year: int | None

    def holds(self, other: Dated) -> bool:
        """Whether ``other``'s span is within this one's, a missing year matching any."""
        if self.year is None or other.year is None:
            mine, theirs = _yearless(self), _yearless(other)
            return mine[0] <= theirs[0] and theirs[1] <= mine[1]
        return self.first <= other.first and other.last <= self.last

    def loose_month(self) -> bool:
        """A month written without its year (11 月): news only against a date the records write,
        never against their silence (most records date nothing but their day)."""
        return self.year is None and self.first != self.last and self.first.month == self.last.month

    def spelled(self) -> str:
        """How the date is shown among a claim's new figures: 2028-02-01, 2027-08, 2027-Q3."""
        year = str(self.year) if self.year is not None else "?"
        if self.first == self.last:
            return f"{year}-{self.first.month:02d}-{self.first.day:02d}"
        if self.first.month == self.last.month:
            return f"{year}-{self.first.month:02d}"
        return f"{year}-Q{(self.first.month + 2) // 3}"


_LEAP = 2000


def _yearless(date: Dated) -> tuple[tuple[int, int], tuple[int, int]]:
    return (date.first.month, date.first.day), (date.last.month, date.last.day)


def _span(year: int | None, month: int, day: int | None = None, months: int = 1) -> Dated | None:
    """The days of ``day`` of ``month``, or of ``months`` months from ``month``; None for no such day."""
    in_year = year if year is not None else _LEAP
    try:
        if day is not None:
            first = last = dt.date(in_year, month, day)
        else:
            end = month + months - 1
            first, last = dt.date(in_year, month, 1), dt.date(in_year, end, calendar.monthrange(in_year, end)[1])
    except ValueError:
        return None
    return Dated(first, last, year)


def _number(match: re.Match[str], name: str) -> int | None:
    value = match.group(name)
    return int(value) if value else None


def _chinese(written: str) -> Dated | None:
    parts = _CHINESE_PARTS.match(written)
    if parts is None:  # never: ``CHINESE_DATE`` matched it
        return None
    year, month, day, part = parts.groups()
    if part is not None:
        return _part_of_month(int(year) if year else None, int(month), part)
    return _span(int(year) if year else None, int(month), int(day) if day else None)


def _part_of_month(year: int | None, month: int, part: str) -> Dated | None:
    """The days of ``month`` that ``part`` (上旬, 中旬, 下旬, 初, 底, 末; early, mid, late) names."""
    whole = _span(year, month)
    if whole is None:
        return None
    first, last = _PART_DAYS[part.lower()]
    return Dated(whole.first.replace(day=first), whole.last.replace(day=min(last, whole.last.day)), year)


def _read(m: re.Match[str]) -> Dated | None:
    if m.group("iso"):
        return _span(_number(m, "year"), int(m.group("iso_month")), int(m.group("iso_day")))
    if m.group("ym_month"):  # 2026-11: the month, as "November 2026" and 2026年11月 are
        return _span(int(m.group("ym_year")), int(m.group("ym_month")))
    if m.group("cn"):
        return _chinese(m.group("cn"))
    for name, day, year in (("month_name", "en_day", "en_year"), ("dm_month", "day_first", "dm_year")):
        if m.group(name):
            return _span(_number(m, year), _MONTHS[m.group(name).rstrip(".").lower()], _number(m, day))
    if m.group("m_month"):
        month = _MONTHS[m.group("m_month").rstrip(".").lower()]
        if m.group("m_part"):  # "mid-December 2026": days 11 to 20
            return _part_of_month(_number(m, "m_year"), month, m.group("m_part"))
        return _span(_number(m, "m_year"), month)
    for quarter, year in (("q", "q_year"), ("yq", "yq_year"), ("cq", "cq_year")):
        if m.group(quarter):
            return _span(_number(m, year), 3 * _QUARTER_CN[m.group(quarter)] - 2, months=3)
    return None


def dates(text: str) -> list[Dated]:
    """The dates ``text`` states (see the module), in order; an earlier day's note is none."""
    found = []
    for m in _DATES.finditer(text):
        if _NOTE_AT.match(text, m.start()) is not None:
            continue
        date = _read(m)
        if date is not None:
            found.append(date)
    return found


def new_dates(claim: str, known_texts: Iterable[str], known_days: Iterable[dt.date] = ()) -> list[str]:
    """The claim's dates (spelled as ``Dated.spelled``) that none of ``known_texts`` states
    and none of ``known_days`` (the records' own days) is: a date the records never give."""
    claimed = dates(claim)
    if not claimed:  # most claims: no date
        return []
    written = [d for text in known_texts for d in dates(text)]
    known = written + [Dated(day, day, day.year) for day in known_days]
    return sorted(
        {
            c.spelled()
            for c in claimed
            if (written or not c.loose_month()) and not any(c.holds(k) or k.holds(c) for k in known)
        },
    )
