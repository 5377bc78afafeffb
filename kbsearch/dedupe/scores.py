"""A score report is one item per (whose score, on what).

"Kestrel-9 scores 63% on QuarryBench" and "Fennec-2 在 QuarryBench 上得分 48%" read alike on
every word but the model's name (scores, %, the benchmark, its version, the rival beaten), so
the learned decision took one model's result for the other's; and a score report names the
rival it beats or trails ("超过 Fennec-2", "ahead of Fennec-2's 48%"), so the subjects rule,
which gives up when a record mentions the other's subject, never told them apart.

When both titles report a score, one model's on one benchmark, they are two items when:
- the models differ and neither record names the other's model but as the rival a score is
  compared with (the same model's score restated, rounded or re-run names the model);
- the benchmarks differ and neither record names the other's benchmark;
- one model on two major versions of one benchmark (v1 / v2: a new task set, its scores not
  comparable) and neither record gives the other's version. A point version (v1 / v1.1: the
  same tasks repaired and re-scored) is the same benchmark, its new score an update.
A record about the model itself ("Pelagic releases Kestrel-9") reports no score: no rule here.

A benchmark round's title may open with the round ("InferBench v3 round: Ostrel Brisa B7 八卡提交",
"MLPerf v5.0 results: Acme X2 posts 9,100 samples/s"): the system after the colon is whose
result it is, so two systems' submissions to one round are two items, and the same system's
resubmission one. A title is a score only when it reads as one (a score's or a submission's word,
a figure in points, %, per second): "instances on Korvane Talon at $2/hour" is a price, "4-chip"
a count, "nc-t9" a name.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from kbsearch.dedupe.measured import title_measurement
from kbsearch.dedupe.subjects import mentions, not_a_subject

# A model as a title's first name: a capitalised or numbered word, hyphenated parts with digits
# (Corvid-7, Tessel-34B, Okapi-R1.1), then a capitalised word or a size (Marlin-2 Pro, Quokka-Mini 3B).
_MODEL = (
    r"(?P<model>(?=[A-Za-z0-9.&+-]*[A-Z])[A-Za-z0-9][A-Za-z0-9.&+]*(?:-[A-Za-z0-9][A-Za-z0-9.+]*)*"
    r"(?:\s+(?:[A-Z][A-Za-z0-9.+-]*|\d+(?:\.\d+)?[BMK]))?)"
)
# A benchmark after it: a name with a capital, perhaps a second capitalised word (SWE-bench
# Verified), then its version (v1, v2.1) apart.
_BENCH = (
    r"(?P<bench>(?=[A-Za-z0-9.+-]*[A-Z])[A-Za-z][A-Za-z0-9.+-]*[A-Za-z0-9+](?:\s+(?!v\d)[A-Z][A-Za-z0-9.+-]*)?)"
    r"(?:\s*(?P<version>v\d+(?:\.\d+)*))?"
)
# English: the model, a few lower-case words or figures ("reaches about 71%", "re-run"), then
# "on BENCH", "tops BENCH" or its entry, "enters BENCH" ("… at Elo 1104"). Chinese: the model
# "在 BENCH 上", "的 BENCH" (its score on it) or "进入 BENCH 榜" (its entry). Probe 34: an entry
# read as no score left the leaderboard (OpenArena) the title's only name, which the model's
# own record never mentions, and the entry was set apart from the model it ranks.
_SCORE_TITLES = (
    re.compile(
        rf"\s*{_MODEL}(?:['’]s)?\s+(?:[a-z0-9@.%~+-]+\s+){{0,6}}?(?:on|tops|leads|enters|joins)\s+(?:the\s+)?"
        rf"{_BENCH}(?![A-Za-z0-9])"
    ),
    re.compile(rf"\s*{_MODEL}\s*(?:在|于)\s*{_BENCH}\s*(?:上|中|里|榜)"),
    re.compile(rf"\s*{_MODEL}\s*(?:进入|登上|跻身|登顶|入围)\s*{_BENCH}\s*(?:排行)?榜"),
    re.compile(rf"\s*{_MODEL}\s*的\s*{_BENCH}(?![A-Za-z0-9])"),
)
_ENTRY = re.compile(r"\b(?:enters|joins)\b|进入|登上|跻身|登顶|入围")
# A round's title: the benchmark with its version or a round's word, a colon, then the system
# whose result it is: a capitalised name and up to three capitalised or coded words (Brisa B7),
# a vendor before its product. "8-chip", "eight-chip", "resubmits" end the name.
_SYSTEM = (
    r"(?P<model>(?=[A-Za-z0-9.+-]*[A-Z])[A-Za-z][A-Za-z0-9.&+-]*"
    r"(?:\s+(?:[A-Z][A-Za-z0-9.&+-]*|[A-Za-z][A-Za-z-]*\d[A-Za-z0-9.-]*)){0,3})"
)
_ROUND_TITLE = re.compile(
    rf"\s*{_BENCH}(?:\s*(?P<round>round|results?|submissions?|leaderboard|榜单?|成绩|结果|第\S{{1,3}}[轮批]))?"
    rf"\s*[:：]\s*{_SYSTEM}(?![A-Za-z0-9])"
)
# What makes the title a score, after the system's name: a score's or a submission's word, or a
# figure in points, %, per second (tokens/s, not TB/s: a bandwidth), or standing alone. A figure before another word is
# a size or a count of units (192 GB, 4-chip, 8 instances); one inside a word a name (nc-t9).
_SCORED = re.compile(
    r"\b(?:scor(?:e|es|ed|ing)|points?|pts|averag(?:e|es|ed|ing)|results?|(?:re)?submi(?:ssions?|ts?|tted))\b"
    r"|得分|分数|跑分|评分|成绩|提交|准确率|正确率|通过率|胜率"
    r"|(?<![\w.$€¥£-])\d[\d,]*(?:\.\d+)?\s*(?:%|％|分(?!钟)|points?\b|pts\b|(?![kKMGTP]?i?[bB]/s)[A-Za-z]+/s\b|qps\b|fps\b"
    r"|(?=\s*(?:$|[,，;；。)）]|on\b|in\b|在|于)))",
    re.IGNORECASE,
)
# A price is not a score, even with a % in it (a 22% price cut, $2.10 per GPU-hour).
_PRICED = re.compile(
    r"[$€¥£]|美元|元\s*/|/\s*(?:hour|hr|h|month|小时)\b|\bper\s+(?:\w+-)?(?:hour|month)"
    r"|每小时|\bpric(?:e|es|ed|ing)\b|\bcosts?\b|价格|降价|涨价|售价",
    re.IGNORECASE,
)

# A rival a score is compared with, in lower-cased text: the name after "ahead of", "than",
# "超过", "比", "高于活文档里" (a few Chinese characters may come between).
_RIVAL = re.compile(
    r"(?:\b(?:ahead\s+of|trails?|trailing|behind|below|above|than|vs\.?|versus|beats?|beating|overtak(?:es?|ing)"
    r"|outperform(?:s|ed|ing)?|surpass(?:es|ed|ing)?|tops)\s+(?:the\s+)?"
    r"|(?:超过|超越|高于|低于|落后于?|领先于?|不及|胜过|优于|击败|比)[\u4e00-\u9fff]{0,6}?\s*)"
    r"(?P<rival>[a-z0-9][a-z0-9.+-]*(?:\s+[a-z][a-z0-9.+-]*)?)"
)


class Score(BaseModel):
    """What a score report's title reports: whose score, on what (lower-cased)."""

    model_config = ConfigDict(frozen=True)

    model: str
    bench: str
    version: str | None = None
    entry: bool = False
    """The title tells the model's entry on a leaderboard ("enters", "进入 … 榜"), not a score on a benchmark."""
    third_party: bool = False
    """The title tells a third party's measurement of the model (``measured``): ``bench`` is who measured."""


def title_score(title: str) -> Score | None:
    """The model, benchmark and its version a title reports a score of, or None."""
    for pattern in (*_SCORE_TITLES, _ROUND_TITLE):
        match = pattern.match(title)
        if match is None or (pattern is _ROUND_TITLE and not (match.group("version") or match.group("round"))):
            continue
        after = title[match.end("model") :]
        if not _SCORED.search(after) or _PRICED.search(after):
            continue
        model = match.group("model")
        if not_a_subject(model.split()[0]):
            return None
        version = match.group("version")
        entry = _ENTRY.search(title[match.end("model") : match.start("bench")]) is not None
        return Score(
            model=model.lower(), bench=match.group("bench").lower(), version=version and version.lower(), entry=entry
        )
    if measured := title_measurement(title):
        return Score(model=measured[1], bench=measured[0], third_party=True)
    return None


def scored_on(score: Score | None, names: frozenset[str]) -> frozenset[str]:
    """Which of a title's ``names`` is the leaderboard its model enters (OpenArena of "Kestrel-3B
    enters OpenArena at Elo 1104"): the entry is news of the model, so the board names no system of
    the title. A score on a benchmark keeps the benchmark its name: two models' scores, or one model's
    on two boards, are two items (probe 31: a LoomCode score joined a Lanternboard reshuffle)."""
    if score is None or not score.entry:
        return frozenset()
    words = set(score.bench.split()) | {part for word in score.bench.split() for part in word.split("-")}
    return frozenset(n for n in names if n in words)


def _named(text: str, name: str) -> bool:
    """Whether lower-cased ``text`` names ``name`` other than as a rival a score is compared with."""
    return mentions(_RIVAL.sub(lambda m: m.group(0)[: m.start("rival") - m.start()], text), name)


def _same(one: str, other: str) -> bool:
    """One model or benchmark, perhaps written longer (Okapi-R1.1 of Okapi-R1, Quokka-Mini 3B)."""
    return mentions(one, other) or mentions(other, one)


def _major(version: str) -> str:
    return version.lstrip("v").split(".")[0]


def scores_differ(item: tuple[Score | None, str, str], known: tuple[Score | None, str, str]) -> str | None:
    """Why two records with these (title score, title, lower-cased title, text and key points)
    are two items, or None."""
    (ours, our_title, our_text), (theirs, their_title, their_text) = item, known
    if ours is None or theirs is None:
        if ours is not None:
            return _not_scored(ours, (their_title, their_text))
        return None if theirs is None else _not_scored(theirs, (our_title, our_text))
    if not _same(ours.bench, theirs.bench):
        if mentions(their_text, ours.bench) or mentions(our_text, theirs.bench):
            return None
        return f"the titles report scores on different benchmarks ({ours.bench} / {theirs.bench})"
    if not _same(ours.model, theirs.model):
        if _named(their_text, ours.model) or _named(our_text, theirs.model):
            return None
        return (
            f"the titles report scores of different models on {ours.bench} ({ours.model} / {theirs.model}), "
            "neither named by the other record but as a rival"
        )
    if ours.version and theirs.version and _major(ours.version) != _major(theirs.version):
        if _gives(their_text, ours.version) or _gives(our_text, theirs.version):
            return None
        return f"the titles report scores on different versions of {ours.bench} ({ours.version} / {theirs.version})"
    return None


def _not_scored(score: Score, other: tuple[str, str]) -> str | None:
    """Why a score report and a record whose title names its benchmark but reports no score
    (the benchmark's own news: its release, a new version, an audit) are two items, or None:
    that record never names the model but as a rival. A benchmark's paper listing the model's
    score names it, and stays joinable."""
    title, text = other
    if score.third_party:
        return _not_measured(score, (title, text))
    if not mentions(title.lower(), score.bench) or any(_named(text, name) for name in _forms(score.model)):
        return None
    return f"the title reports {score.model}'s score on {score.bench}; the other, on {score.bench}, never names it"


def _not_measured(score: Score, other: tuple[str, str]) -> str | None:
    """Why a third party's measurement of a system and a record whose title names that system
    (its release, its own benchmark) are two items, or None: that record never names the
    measurer (probe 39: a benchmark group's run of a point release joined the release)."""
    title, text = other
    if not mentions(title.lower(), score.model.split()[0]) or mentions(text, score.bench.split()[0]):
        return None
    who, what = score.bench, score.model
    return f"the title reports {who}'s measurement of {what}; the other, on {what}, never names {who}"


def _forms(model: str) -> set[str]:
    """The model's name, without the word after it (Marlin-2 of Marlin-2 Pro, Quokka-Mini of
    Quokka-Mini 3B) and without a point version (Okapi-R1 of Okapi-R1.1, its patch)."""
    first = model.split()[0]
    return {model, first, re.sub(r"(?<=[a-z0-9])\.\d+$", "", first)}


def _gives(folded: str, version: str) -> bool:
    return re.search(rf"(?<![a-z0-9.]){re.escape(version)}(?![0-9.])", folded) is not None
