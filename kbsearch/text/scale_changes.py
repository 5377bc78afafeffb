"""A level or a cadence a claim says its quantity changed to, which no record of the item states.

"生物风险自评由"中"上调为"高"" shares every word but one character with the record's "生物风险自评
为"中"", and "moves the external audit from once a year to every six months" every word with
"checked by an external auditor once a year": both came out known (probe 35), a raised risk
level and a tightened audit cadence lost. A changed figure is news (``quantities``), and a
switch to a named value (``switches``); a level on an ordered scale (low/medium/high, 低/中/高)
and a cadence (once a year, every six months, 每季度, 每月) are the same kind of quantity, but
carry no digit and no name, so neither reader sees them.

Read only in a told change (``told_changes``, the one reader of a told change) whose two ends
are each a level of one scale, or each a cadence, and differ: "from medium to high" tells a
change, a bare "high" does not, and an end that is more than a level word ("from low to high
resolution") is no level. The change is news when neither the passage weighed nor a record of
the item states the new level or cadence:
- a cadence, written anywhere in any wording of the same period (twice a year, 每半年);
- a level, told as a change's end in a record, or written as a level (quoted, after 为, "rated",
  a colon) of the same quantity: in the claim's language, of something sharing a word with what
  the claim says changed (not the words any level is told in: "化学风险评级" and "自主性风险评级"
  share only 风险评级); in the other language, where no word is shared, as the only level the
  record writes (a system card listing several levels states none of them for sure). The
  record's own credibility line (可信度：高, which the parser adds to every briefing's text) is
  no statement of its item's level.

A system card rating several risks, a policy raising one of them, and an audit cadence are
the team's own news kinds too (a model card's risk tier, an SLA's report cadence). On the dev
digests' 43,295 distinct tldr, method and result texts no told change reads as a level or
cadence change, so the rule cannot fire there.
"""

from __future__ import annotations

import re

from kbsearch.text.spelled import chinese_number, english_number
from kbsearch.text.textsim import language, lexical_tokens
from kbsearch.text.told_changes import told_changes

_LEVELS = {
    **dict.fromkeys(("low", "minor", "低", "较低"), 1),
    **dict.fromkeys(("medium", "moderate", "mid", "中", "中等", "中度"), 2),
    **dict.fromkeys(("high", "elevated", "高", "较高"), 3),
    **dict.fromkeys(("very high", "critical", "severe", "extreme", "极高", "严重"), 4),
}
"""One ordered scale (risk, credibility, severity, priority in words): its words' ranks."""
_LEVEL_DRESS = re.compile(
    r"^(?:the|a|an|为|是|到|至)\s*|\s*(?:level|risk|rating|severity|priority|等级|级别|级|风险|水平|档)$", re.IGNORECASE
)
_QUOTES = "\"'“”‘’「」『』《》 \t"

_EN_LEVEL_SAID = re.compile(
    r"(?:\b(?:rated|rating|level|as|is|now|at|to)\b|[:=])\s*[\"'“‘]?\s*(?P<w>very high|low|minor|medium|moderate|mid"
    r"|high|elevated|critical|severe|extreme)\b",
    re.IGNORECASE,
)
_ZH_LEVEL_SAID = re.compile(
    r"(?:[为是至到成：:]|[\"'“‘「『])\s*[\"'“‘「『]?\s*(?P<w>较低|中等|中度|较高|极高|严重|低|中|高)"
    r"(?=[\"'”’」』]|\s|$|[，,。；;（(、]|风险|级|等级|档)"
)
_GENERIC = re.compile(
    r"\b(?:risks?|ratings?|rated|rates|levels?|severity|priority|self-assessment|assessment|raised|lowered|upgraded"
    r"|downgraded|moved|changed|cut|now)\b|风险|评级|等级|级别|水平|自评|评估|上调|下调|调整|提高|降低|调",
    re.IGNORECASE,
)
_CREDIBILITY = re.compile(r"^\s*(?:可信度|credibility|confidence)\s*[:：]", re.IGNORECASE)

_UNIT_DAYS = {"day": 1.0, "week": 7.0, "month": 30.0, "quarter": 90.0, "year": 360.0}
"""In days, a year of twelve months: "every 12 months" is once a year, "every three months" quarterly."""
_ZH_UNIT = {"天": "day", "日": "day", "周": "week", "星期": "week", "月": "month", "季度": "quarter", "季": "quarter",
            "年": "year"}  # fmt: skip
_TIMES = {"半": 0.5, "once": 1, "twice": 2}
"""The counts a cadence writes that are no numeral (``spelled`` reads the numerals)."""
_EN_UNITS = r"(?P<unit>day|week|month|quarter|year)s?"
_CADENCES = (
    # "every six months", "every 2 weeks", "every quarter"
    re.compile(rf"\bevery\s+(?:(?P<n>\d+|one|two|three|four|six|twelve)\s+)?{_EN_UNITS}\b", re.IGNORECASE),
    # "once a year", "twice per year", "3 times a month"
    re.compile(rf"\b(?P<times>once|twice|\d+\s+times)\s+(?:a|an|per|each)\s+{_EN_UNITS}\b", re.IGNORECASE),
    # "annually", "quarterly", "monthly", "weekly", "daily", "semi-annually"
    re.compile(
        r"\b(?P<adverb>semi-?annually|bi-?annually|annually|yearly|quarterly|monthly|bi-?weekly|fortnightly|weekly|daily)"
        r"\b(?!\s+active)",
        re.IGNORECASE,
    ),
    # 每年, 每半年, 每两周, 每个月, 每季度
    re.compile(
        r"每\s*(?P<zn>\d+|[一两二三四六半]|十二)?\s*个?\s*(?P<zunit>季度|星期|天|日|周|月|季|年)(?!\s*[两二三四\d]+\s*次)"
    ),
    # 一年一次, 半年一次, 一年两次
    re.compile(
        r"(?P<zn2>\d+|[一两二三四六半]|十二)?\s*个?\s*(?P<zunit2>季度|星期|天|周|月|年)\s*(?P<zt>[一两二三四]|\d+)\s*次"
    ),
)
_ADVERB_DAYS = {"annually": 360.0, "yearly": 360.0, "semiannually": 180.0, "biannually": 180.0, "quarterly": 90.0,
                "monthly": 30.0, "biweekly": 14.0, "fortnightly": 14.0, "weekly": 7.0, "daily": 1.0}  # fmt: skip


def _count(written: str | None) -> float:
    if not written:
        return 1.0
    written = written.lower().replace("times", "").strip()
    if written in _TIMES:
        return float(_TIMES[written])
    number = chinese_number(written) if language(written) == "zh" else english_number(written)
    return float(number)


def _period(found: re.Match[str]) -> float:
    """The days between two of the events a cadence tells."""
    group = found.groupdict()
    if group.get("adverb"):
        return _ADVERB_DAYS[group["adverb"].lower().replace("-", "")]
    if group.get("zunit"):
        return _count(group["zn"]) * _UNIT_DAYS[_ZH_UNIT[group["zunit"]]]
    if group.get("zunit2"):
        return _count(group["zn2"]) * _UNIT_DAYS[_ZH_UNIT[group["zunit2"]]] / _count(group["zt"])
    days = _UNIT_DAYS[group["unit"].lower()]
    return days / _count(group["times"]) if group.get("times") else _count(group.get("n")) * days


def cadences(text: str) -> set[float]:
    """The periods, in days, of the cadences ``text`` writes ("every six months": 180)."""
    return {round(_period(found), 1) for pattern in _CADENCES for found in pattern.finditer(text)}


def _within(periods: set[float], others: set[float]) -> bool:
    """Whether each period is one of ``others``, give or take a tenth (a quarter of 90 or 91 days)."""
    return all(any(abs(p - o) <= 0.1 * max(p, o) for o in others) for p in periods)


def _level(written: str) -> int | None:
    """The rank of an end that is a level word and nothing more ("中", "high risk"), else None."""
    word = written.strip(_QUOTES).lower()
    word = _LEVEL_DRESS.sub("", word).strip(_QUOTES)
    return _LEVELS.get(word)


def _clauses(text: str) -> list[str]:
    return [c for c in re.split(r"[，,。；;\n]|(?<=[.!?])\s", text) if c.strip() and not _CREDIBILITY.match(c)]


def _about(text: str) -> set[str]:
    """The words of what a level is of, without the words any level is told in (risk, rating, 评级,
    raised): "化学风险评级" and "自主性风险评级" share only those."""
    return lexical_tokens(_GENERIC.sub(" ", text))


def _levels_said(clause: str) -> list[tuple[int, set[str]]]:
    """Each level ``clause`` writes as a level, with the words of what it is of: those since the
    level before it ("rates chemical risk as low and autonomy as medium": autonomy's is medium)."""
    found = sorted(
        (m.start(), m.end(), m.group("w")) for p in (_EN_LEVEL_SAID, _ZH_LEVEL_SAID) for m in p.finditer(clause)
    )
    said, since = [], 0
    for start, end, word in found:
        said.append((_LEVELS[word.lower()], _about(clause[since:start])))
        since = end
    return said


def _states_level(text: str, rank: int, about: set[str], claim_language: str) -> bool:
    """Whether ``text`` tells a change to the level, or writes it as a level of the claim's
    quantity: in the claim's language, of something sharing a word with ``about``; in the other
    language, where no word is shared, as the only level the text writes."""
    if any(_level(end) == rank for _, end in told_changes(text)):
        return True
    other: set[int] = set()
    for clause in _clauses(text):
        said = _levels_said(clause)
        if language(clause) != claim_language:
            other |= {level for level, _ in said}
        elif any(level == rank and about & words for level, words in said):
            return True
    return other == {rank}


def scale_changed(claim: str, passage: str, records: list[str]) -> str | None:
    """ "<A> → <B>" when the claim tells its quantity's level or cadence changed from A to B,
    and neither ``passage`` nor any of ``records`` states B (see the module); else None."""
    texts = (passage, *records)
    for start, end in told_changes(claim):
        shown = f"{start.strip()[:40]} → {end.strip()[:40]}"
        was, now = _level(start), _level(end)
        if was is not None and now is not None and was != now:
            before = claim[: max(0, claim.find(start))]
            about = _about(re.split(r"[，,。；;.]", before)[-1]) if before else set()
            if not any(_states_level(text, now, about, language(claim)) for text in texts):
                return shown
            continue
        old, new = cadences(start), cadences(end)
        if old and new and not _within(new, old) and not any(_within(new, cadences(text)) for text in texts):
            return shown
    return None
