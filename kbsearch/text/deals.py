"""Where a deal stands: announced, closed, under a regulator's review, decided, as a sentence
says it in Chinese or English (``stages`` reads software's and papers' tracks).

Probe 30: "The European Commission opened an in-depth (phase 2) review of Northwind's
acquisition of Cascade" was known from "Northwind completed its $1.2B acquisition", and "may
have to divest the C2 line" too: the claim decision reads the deal's sentences as one. A move
along this track is news, as a pull request merged after its review is. A regulator's review
is read here, not as a pull request's (``stages``' "under review"): a claim telling a deal's
stage is weighed on this track only. An outcome only in prospect ("may have to divest", "可能
被要求剥离") ranks just below that outcome: news after a review opened, not after a ruling.
A passage telling no deal stage does not state a claim's (``stages.told``): the review, weighed
against "Northwind completes …", was taken as said by "signed a definitive agreement to buy".
"""

from __future__ import annotations

import re
from enum import IntEnum


class DealStage(IntEnum):
    ANNOUNCED = 1
    CLOSED = 2
    REVIEW = 3
    DECIDED = 4


_DEAL = r"(?:acquisition|acquire|merger|deal|takeover|buyout)"
_WORDS: dict[DealStage, str] = {
    DealStage.ANNOUNCED: (
        rf"\bagree[sd]? to (?:acquire|buy|merge)|\bannounce[sd]? (?:an? |its |the )?(?:[^,.;]|\.(?=\d)){{0,24}}{_DEAL}"
        r"|\bplans? to acquire|宣布收购|拟收购|同意收购|签署收购协议"
    ),
    DealStage.CLOSED: (
        rf"\bcomplete[sd]? (?:its |the |an? )?(?:[^,.;]|\.(?=\d)){{0,24}}{_DEAL}"
        rf"|\b{_DEAL}\w* (?:has |had |have )?(?:already )?(?:closed|completed)\b"
        r"|\bclos(?:es|ed|ing) (?:its |the )?(?:[^,.;]|\.(?=\d)){0,24}"
        rf"{_DEAL}|完成(?:对[^，。；]{{0,16}}的)?(?:收购|并购)|(?:已|完成)交割"
    ),
    DealStage.REVIEW: (
        r"\b(?:in-depth|phase (?:2|two|ii)|antitrust|regulatory|merger) (?:\(phase 2\) )?(?:review|probe|investigation)"
        rf"|\bopen(?:s|ed)? an? [^,.;]{{0,30}}(?:review|probe|investigation) (?:of|into) [^,.;]{{0,40}}{_DEAL}"
        r"|深入审查|反垄断(?:审查|调查)|并购审查|启动[^，。；]{0,6}审查"
    ),
    DealStage.DECIDED: (
        rf"\b(?:approve[sd]?|clear(?:s|ed)|block(?:s|ed)|prohibit(?:s|ed))\b[^,.;]{{0,30}}{_DEAL}"
        r"|\bdivest(?:s|ed|iture|ment)?\b|批准[^，。；]{0,10}收购|否决|叫停|剥离"
    ),
}
_MENTION = re.compile("|".join(f"(?P<d{int(s)}>{p})" for s, p in _WORDS.items()), re.IGNORECASE)
_PROSPECT = re.compile(
    r"(?:\b(?:may|might|could|would|will|to be|expected to|likely to|if)\b|可能|或将|将|需|要求)[^,.;:，。；：]{0,16}$",
    re.IGNORECASE,
)


_CONTEXT = re.compile(
    rf"{_DEAL}|\b(?:regulators?|commission|antitrust|competition authority)\b|收购|并购|交易|交割|反垄断|监管|委员会",
    re.IGNORECASE,
)
"""A deal or a regulator named: the dev digests' "an in-depth review of 129 studies" and "剥离策略"
(peeling layers) or "黏膜下剥离术" (a surgery) tell no deal's stage."""


def deal_rank(text: str) -> float | None:
    """The latest deal stage ``text`` tells (an outcome only in prospect just below it), or None:
    none in a text naming no deal nor regulator (``_CONTEXT``)."""
    if not _CONTEXT.search(text):
        return None
    ranks = []
    for match in _MENTION.finditer(text):
        stage = DealStage(int((match.lastgroup or "d1")[1:]))
        ranks.append(stage - 0.5 if _PROSPECT.search(text[max(0, match.start() - 24) : match.start()]) else stage)
    return max(ranks, default=None)


def deal_moved(claim: str, passage: str) -> str | None:
    """ "<earlier> → <later>" when the claim tells a later deal stage than the passage, else None
    (either tells none, or the claim's is not later)."""
    now, then = deal_rank(claim), deal_rank(passage)
    if now is None or then is None or now <= then:
        return None
    return f"{_label(then)} → {_label(now)}"


def deal_told(claim: str, passage: str) -> bool | None:
    """Whether the passage tells the deal stage the claim tells, as late or later (one telling
    no deal stage does not); None for a claim that tells none."""
    if deal_rank(claim) is None:
        return None
    return deal_rank(passage) is not None and deal_moved(claim, passage) is None


def _label(rank: float) -> str:
    stage = DealStage(int(rank + 0.5)).name.lower()
    return stage if rank == int(rank) else f"possibly {stage}"
