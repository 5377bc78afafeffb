"""A change a text tells of one quantity: the figure it moves from and the one it moves to.

"The fine was raised from 2% to 4% of turnover", "cut the fine from €31 million to €18 million
on appeal", "罚款上限由 2% 提高到 4%", "从 3100 万欧元降至 1800 万欧元", "4,800 TPP → 3,600 TPP",
"适用日由 2027年8月1日 推迟至 2028年2月1日". A record that states the start and not the end
holds the quantity as it was: the end is the claim's news, not detail beside a figure the
record states (issue 25, probe 35: "from 2% to 4%" was shown as known beside a record's 2%).

Read only with a word of change before "from"/从/由 (or an arrow between the two figures):
a bare "from 7B to 70B" is as often a range of sizes as a change. What the two ends are
(figures, dates) is left to the caller, which reads the written text of each end.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kbsearch.text.quantities import unstated
from kbsearch.text.textsim import written_numbers

# A figure's thousands' comma ("4,800") is no clause break.
_FIGURE_COMMA = r",(?=\d{3})"
# A verb of change, in any inflection, then at most a few words (what changed) before "from".
_CHANGE_VERBS = (
    r"rais|increas|lift|hik|boost|doubl|tripl|grow|grew|rose|rise|climb|jump|expand|extend|widen|"
    r"cut|lower|reduc|decreas|drop|fall|fell|trim|slash|halv|shrink|shrank|narrow|tighten|loosen|relax|"
    r"chang|mov|shift|revis|adjust|amend|updat|correct|delay|postpon|push|pull|bring|brought|set|reset|"
    r"went|go|improv|upgrad|downgrad|restat"
)
_EN_CHANGE = re.compile(
    rf"\b(?:{_CHANGE_VERBS})\w*\b[^.;:!?()\n]{{0,60}}?\bfrom\s+(?P<start>(?:[^,;()\n]|{_FIGURE_COMMA}){{1,28}}?)\s+to\s+(?P<end>(?:[^,;()\n]|{_FIGURE_COMMA}){{1,28}})",
    re.IGNORECASE,
)
_CN_CHANGE = re.compile(
    rf"[从由]\s*(?P<start>(?:[^，,。；;（()\n]|{_FIGURE_COMMA}){{1,20}}?)\s*"
    r"(?:提升|提高|增加|增长|上升|上调|下调|调整|调|升|涨|扩展|扩大|扩充|扩增|扩容|放宽|收紧|翻|"
    r"降低|下降|减少|削减|压缩|缩短|缩减|降|减|变|改|修改|修正|更正|推迟|延后|延迟|延长|提前|改期)"
    rf"(?:到|至|为|成)\s*(?P<end>(?:[^，,。；;（()\n]|{_FIGURE_COMMA}){{1,20}})"
)
_ARROW = re.compile(
    rf"(?P<start>(?:[^，,。；;:：()（）\n→]|{_FIGURE_COMMA}){{1,20}}?)\s*(?:→|->|⟶|=>)"
    rf"\s*(?P<end>(?:[^，,。；;()（）\n→]|{_FIGURE_COMMA}){{1,20}})"
)


def told_changes(text: str) -> list[tuple[str, str]]:
    """The written start and end of each change ``text`` tells (see the module), in order."""
    found = []
    for pattern in (_EN_CHANGE, _CN_CHANGE, _ARROW):
        found += [(m.group("start"), m.group("end")) for m in pattern.finditer(text)]
    return found


def _figures(written: str) -> list[str]:
    """The figures of one written end, in ``numbers``' spelling, in order."""
    return [spelling for _, _, spelling, _ in written_numbers(written)]


def moved_from(claim: str, stated: Iterable[str]) -> set[str]:
    """The figures ``stated`` (the records') that the claim tells its quantity moved from, to
    a figure they lack: the last figure written before the change's end, the first after it
    ("from 2% to 4% of turnover": 2% to 4%). The caller counts the start as a figure the claim
    replaces (``quantities.changes_a_figure``), so the end is a changed figure, not detail."""
    stated = set(stated)
    found: set[str] = set()
    for start, end in told_changes(claim):
        starts, ends = _figures(start), _figures(end)
        if not starts or not ends:
            continue
        if not unstated(starts[-1:], stated) and unstated(ends[:1], stated):
            found.add(starts[-1])
    return found
