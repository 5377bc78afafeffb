"""A change a text tells of one quantity: the figure it moves from and the one it moves to.

"The fine was raised from 2% to 4% of turnover", "cut the fine from €31 million to €18 million
on appeal", "罚款上限由 2% 提高到 4%", "从 3100 万欧元降至 1800 万欧元", "4,800 TPP → 3,600 TPP",
"适用日由 2027年8月1日 推迟至 2028年2月1日". A record that states the start and not the end
holds the quantity as it was: the end is the claim's news, not detail beside a figure the
record states (issue 25, probe 35: "from 2% to 4%" was shown as known beside a record's 2%).

Read only with a word of change before "from"/从/由 (or an arrow between the two figures):
a bare "from 7B to 70B" is as often a range of sizes as a change. What the two ends are
(figures, dates) is left to the caller, which reads the written text of each end.

This is the one reader of a told change; its callers ask for one of three readings (``Reading``):
the figures a quantity moved between (``figures_changed``, read by ``measures``), any change a
claim tells of a figure the records state (``moved_from``), and a switch to a named value
(``switches``). Each reading keeps the grammar it was fitted with, so each caller reads what it did.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import Enum

from kbsearch.text.quantities import unstated
from kbsearch.text.textsim import numbers, written_numbers


class Reading(Enum):
    """Which changes a caller reads (see the module)."""

    FIGURES = "figures"
    """A quantity moved between two figures, in the narrow words ``_CHANGED_FROM`` reads."""
    WRITTEN = "written"
    """Any change with a word of change before "from"/从/由, or an arrow between its ends."""
    NAMED = "named"
    """A switch to a named value or a rank (``_SWITCHES``); its start may be unwritten ("")."""


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
_LABELLED = re.compile(
    rf"(?:^|(?<=[-•*;；\n]))\s*[A-Za-z][\w /-]{{0,30}}:\s*from\s+(?P<start>(?:[^,;()\n]|{_FIGURE_COMMA}){{1,28}}?)"
    rf"\s+to\s+(?P<end>(?:[^,;()\n]|{_FIGURE_COMMA}){{1,28}})",
    re.IGNORECASE,
)
"""A key point's label, then "from A to B" with no verb ("Value: from $3.5B to $5.2B"): the
label names the one quantity, and a briefing's key point states what it is now, so the
two ends are its old and new figure (probe 37), as "raised from 40,000 to 60,000" is."""
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

# 由 38% 提升到 41%, "rose from 38% to 41%": the figure a change starts from, and the one it
# ends at. Often a baseline (从 26% 提升到 90%, the method's gain), so read as the records' own
# figure changed only for the same quantity, when they lack the end (``measures.measured_again``).
# A scope grown ("把被测 server 从 40 个扩展到 60 个", "expands the suite from 40 to 60 servers")
# is such a change too: the count the records give, moved on (probe 21). So is a change told with
# no direction ("由 34% 变为 37%", "changed from 34% to 37%", "the best rate of 34% becomes 37%"):
# a rescored result, read as the direction words' are (probe 31). A bare 扩 or 缩 tells one too
# ("上下文从 32K 扩到 128K", "从 80GB 缩到 40GB"): once 32K restated a card's 32,768, the 32K
# a context grew from was no figure the claim changed, and the change read as a restatement (probe 34).
_CHANGED_FROM = re.compile(
    r"[从由]\s*([^，,。；;]{1,12}?)\s*(?:提升|提高|增加|增长|上升|升|降低|下降|减少|降|缩短|涨|扩展|扩大|扩充|扩增|扩容|扩|缩|变)"
    r"(?:到|至|为|成)([^，,。；;（(]{1,12})"
    r"|\b(?:rose|rises|risen|grew|grows|climbed|climbs|fell|falls|dropped|drops|improved|improves|went|goes"
    r"|(?:chang|mov|shift|increas|decreas|declin)(?:ed|es|s)|jump(?:ed|s)"
    r"|(?:expand|extend|scal)(?:ed|es|s)\b(?:[^,;.()]{1,40}?)?)"
    r"\s+from\s+([^,;]{1,12}?)\s+to\s+([^,;()]{1,12})"
    r"|(?<![\w.])(\d[\d.,]*\s*(?:%|x|×)?)\s+(?:becomes|became)\s+([^,;()]{1,12})",
    re.IGNORECASE,
)
_END = r"(?:[^,;，；。()（）:：]|\.(?!\s|$)){1,40}"
"""A named value: to its clause's end (not the dot of "Apache-2.0")."""
_SWITCHES = re.compile(
    # "changed from A to B", "falls from 4th to 6th", "moves from X to Y"
    r"\b(?:chang|switch|mov|shift|fall|fell|drop|slip|sank|sink|rose|rise|climb|jump|went|go|upgrad|downgrad)"
    rf"\w*\s+from\s+(?P<a>{_END}?)\s+to\s+(?P<b>{_END})"
    # "switches to B", "moved to B", "relicensed to B" (not "migrates", "transfers": a method's
    # knowledge carried to another task or model, "迁移到 SLM" in the dev digests)
    rf"|\b(?:switch(?:es|ed|ing)?|mov(?:es|ed|ing)|relicens(?:es|ed|ing))\s+(?:over\s+)?to\s+(?P<c>{_END})"
    # 由 A 改为 B, 从第 4 降至第 6
    r"|[由从]\s*(?P<d>[^，。；,;：:]{1,30}?)\s*(?<!转)"  # not 转换为, 转变为: a method converts
    r"(?:改为|改成|换成|换为|变为|变成|切换为|切换到|切换至|更换为|降至|降到|降为|跌至|跌到|升至|升到|升为)"
    rf"\s*(?P<e>{_END})"
    # 改用 B, 切换到 B, 许可改为 B
    rf"|(?:改用|换用|转用|切换到|切换至|改为|改成|替换为|替换成|更换为|更换成)\s*(?P<f>{_END})",
    re.IGNORECASE,
)
_NAME = r"[A-Za-z0-9][A-Za-z0-9_.+\-]*[A-Za-z0-9+]"
"""The new value of a replacement told before the old one: the name just before its verb."""
_REPLACES = (
    # "now Apache-2.0, replacing the research-only licence"
    re.compile(rf"\bnow\s+(?P<new>{_END}?)\s*,?\s+(?:replacing|superseding)\s+(?P<old>{_END})", re.IGNORECASE),
    # "SGLang replaces vLLM", "FP8 instead of BF16", "RMSNorm in place of LayerNorm"
    re.compile(
        rf"(?<![\w.+-])(?!(?:it|this|that|they|which|who|he|she|we)\b)(?P<new>{_NAME})\s+(?:now\s+)?(?:replaces|replaced|supersedes|superseded|instead\s+of|in\s+place\s+of)"
        rf"\s+(?P<old>{_END})",
        re.IGNORECASE,
    ),
    # "vLLM was replaced by SGLang"
    re.compile(
        rf"(?P<old>{_NAME})\s+(?:is|was|has\s+been|were|got)\s+(?:replaced|superseded)\s+(?:by|with)\s+(?P<new>{_END})",
        re.IGNORECASE,
    ),
    # "以 SGLang 取代 vLLM", "SGLang 取代了 vLLM", "vLLM 被 SGLang 取代"
    re.compile(rf"(?P<new>{_NAME})\s*(?:取代|替代|代替)了?\s*(?P<old>[^，,。；;：:]{{1,30}})"),
    re.compile(rf"(?P<old>{_NAME})\s*被\s*(?P<new>{_NAME})\s*(?:取代|替代|代替|替换)"),
)
"""A switch told as a replacement, the new value first ("B replaces A", "now B, replacing A",
"B 取代 A"): the same news as "from A to B" (probe 38: a licence "now Apache-2.0, replacing the
research-only licence" was read as the record's research-only licence)."""


def told_changes(text: str, reading: Reading = Reading.WRITTEN) -> list[tuple[str, str]]:
    """The written start and end of each change ``text`` tells in ``reading``, in order."""
    if reading is Reading.FIGURES:
        return [
            next((m.group(i), m.group(i + 1)) for i in (1, 3, 5) if m.group(i)) for m in _CHANGED_FROM.finditer(text)
        ]
    if reading is Reading.NAMED:
        switches = [
            (
                m.start(),
                m.group("a") or m.group("d") or "",
                m.group("b") or m.group("c") or m.group("e") or m.group("f") or "",
            )
            for m in _SWITCHES.finditer(text)
        ]
        switches += [(m.start(), m.group("old"), m.group("new")) for p in _REPLACES for m in p.finditer(text)]
        return [(start, end) for _, start, end in sorted(switches, key=lambda found: found[0])]
    found = []
    for pattern in (_EN_CHANGE, _LABELLED, _CN_CHANGE, _ARROW):
        found += [(m.group("start"), m.group("end")) for m in pattern.finditer(text)]
    return found


def figures_changed(text: str) -> list[tuple[set[str], set[str]]]:
    """The figures each change ``text`` tells (``Reading.FIGURES``) starts from and ends at, in
    ``numbers``' spelling."""
    return [(numbers(start), numbers(end)) for start, end in told_changes(text, Reading.FIGURES)]


def _figures(written: str) -> list[str]:
    """The figures of one written end, in ``numbers``' spelling, in order. Each is read with the
    text up to the next figure, as ``numbers`` reads it: a unit written after the figure ("15 天",
    "15 days") is its unit, so the start of "由草案的 15 天缩短为 10 天" is the records' 15d, not
    a bare 15 no record states (probe 35)."""
    found = list(written_numbers(written))
    ends = [start for start, _, _, _ in found[1:]] + [len(written)]
    spelled = []
    for (start, _, spelling, _), end in zip(found, ends, strict=False):  # none found: no figure
        read = numbers(written[start:end])
        spelled.append(next(iter(read)) if len(read) == 1 else spelling)
    return spelled


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
        for begun in dict.fromkeys((starts[-1], _in_unit_of(start, starts[-1], end, ends[0]))):
            if not unstated([begun], stated) and unstated(ends[:1], stated):
                found.add(begun)
    return found


def _in_unit_of(start: str, figure: str, end: str, after: str) -> str:
    """The start's last figure read with the end's unit when it is written bare and the end's
    first figure is not: "dropped from 25 to 14 minutes" moves from 25 minutes (``25min``, the
    records' "约 25 分钟"), as ``numbers`` reads "25 to 14 minutes" whole. Read bare, the start
    was a 25 no record states, and the 14 minutes mere detail beside the records' 25 (probe 45)."""
    if not figure.isdigit() and not figure.replace(".", "", 1).isdigit():
        return figure  # written with a unit or magnitude of its own
    if after.replace(".", "", 1).isdigit():
        return figure  # the end is bare too: no unit to share
    written = list(written_numbers(start))
    if not written:
        return figure
    first, last, _, _ = written[-1]
    read = numbers(f"{start[first:last]} to {end}") - {after}
    return next((n for n in sorted(read) if not n.replace(".", "", 1).isdigit()), figure)
