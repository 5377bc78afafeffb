"""Scores in points (分) that are a percentage of the same score, read as ``quantities.unstated``
compares figures.

A benchmark score out of 100 is written as a percentage by one writer and in points by another:
"复测后为 74.0%" and "约 74 分" are one figure, as 71.2% and "about 71%" are. A figure written
as 分 is read as its percentage too (``score_points``), never instead: "平均 70.8 分" is still an
English record's bare "averages 70.8".

Not every 分 is a share of 100. A difference is in points as well ("高 2.7 分", "差距为 19 分",
"下降 9 分"): a gap, not a score. A score on another scale ("满分 5 分", "10 分制", "评分 4.5 分", a
rating) is none, nor is the full mark itself. 分钟 is minutes, 分位 a percentile, 三分之一 a fraction.
"""

from __future__ import annotations

import re

from kbsearch.text.textsim import numbers

_POINTS = re.compile(
    r"(?<![\dA-Za-z.])(\d+(?:\.\d+)?)\s*分(?![钟位之别成为配布析支割享摊期段组类数辨制区级解离词子母量桶块步层散发])"
)
# Words right before the figure that make it a difference: 高 2.7 分, 差距为 19 分, 下降了 9 分.
_DIFFERENCE_BEFORE = re.compile(r"[高低多少差增减降升涨跌掉丢]\s*(?:了|出|约|近|达|为|是|共)?\s*(?:约|近)?\s*$")
# A clause that tells a gain or a lead tells its figures in points as differences, however far
# ("两项指标分别提升 3.4 和 6.1 分", "优于基线 12.5 分"), unless the score reached follows 到/至/达到.
_CHANGE_IN_CLAUSE = re.compile(
    r"提升|提高|增加|增长|上升|下降|降低|减少|领先|落后|优于|胜过|超过|超越|超出|高出|低出|差距|相差|拉开|缩小|扩大|\+\s*$"
)
_REACHED_BEFORE = re.compile(r"(?:到|至|达到|达)\s*(?:约|近)?\s*$")
_FULL_MARK_BEFORE = re.compile(r"满分\s*(?:为|是)?\s*$")
_OTHER_SCALE = re.compile(r"满分\s*(?:为|是)?\s*(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)\s*分制")
_RATING = re.compile(r"评分|打分|评级|星级|[/／]\s*(?!100(?!\d))\d+(?:\.\d+)?\s*分")
_CLAUSE = re.compile(r"[，,。；;：:\n]")


def score_points(text: str) -> set[str]:
    """The figures ``text`` writes as a score in points out of 100 (see the module), in ``numbers``' spelling."""
    if "分" not in text:
        return set()
    if any((m.group(1) or m.group(2)) != "100" for m in _OTHER_SCALE.finditer(text)):
        return set()  # a score on a scale of 5 or 10 is no percentage
    found: set[str] = set()
    for clause in _CLAUSE.split(text):
        if _RATING.search(clause):
            continue
        for match in _POINTS.finditer(clause):
            before = clause[: match.start()]
            if _DIFFERENCE_BEFORE.search(before) or _FULL_MARK_BEFORE.search(before):
                continue
            if _CHANGE_IN_CLAUSE.search(before) and not _REACHED_BEFORE.search(before):
                continue
            found |= numbers(match.group(1))
    return found
