"""Where a rule or a court case stands, as a sentence says it in Chinese or English
(``stages`` reads software's and papers' tracks, ``deals`` a deal's).

Probe 35: "发起人于 2027-03-04 撤回 SB 91" was known from "SB 91 passed the state Senate", and
"the court struck down SB 88's labeling mandate" from the preliminary injunction: the claim
decision reads a bill's or a case's sentences as one, whichever stage they tell. A rule moves
from proposed (introduced, a draft or consultation, 征求意见) through a chamber's or committee's
vote to adopted (signed, enacted, the final text, 定稿) and in force (生效, 施行), and may end
withdrawn, struck down, repealed or delayed (撤回, 废止, 推迟); a case from filed through an
injunction to a ruling and an appeal. A move along either track is news, the same stage in
other words is not.

The words are read in their legal sense only: 通过 alone also means "by means of", "passed"
a test, "final" a product's GA and "draft" a speculative decoder's model, so each stage's
words carry their own legal subject (a bill, a chamber, a rule's name), and a text naming no
bill, law, regulator, legislature or court (``_CONTEXT``) tells no legal stage at all.
"""

from __future__ import annotations

import re
from enum import IntEnum


class RuleStage(IntEnum):
    PROPOSED = 1
    PASSED = 2
    ADOPTED = 3
    IN_FORCE = 4
    HALTED = 5


class CaseStage(IntEnum):
    FILED = 1
    INJUNCTION = 2
    RULING = 3
    APPEAL = 4


_LAW = (
    r"(?:bill|act|law|statute|amendment|ordinance|regulation|rules?(?![-\w])|directive|guidance|guidelines"
    r"|code of practice|(?:SB|AB|HB|H\.R\.|S\.)\s?\d{2,5})"
)
_CHAMBER = r"(?:senate|house|assembly|parliament|congress|chamber|legislature|committee|council)"
_LAW_ZH = r"(?:法案|法律|法规|条例|规则|规定|修正案|草案|指南|准则|管理办法|[法例]》|(?:SB|AB|HB|S\.)\s?\d{2,5})"
_CHAMBER_ZH = r"(?:参议院|众议院|议会|国会|立法会|人大|常委会)"
_NEAR = r"[^,.;:，。；：]{0,24}"
_NEAR_ZH = r"[^,.;:，。；：]{0,12}"

_RULE_WORDS: dict[RuleStage, str] = {
    RuleStage.PROPOSED: (
        rf"\b(?:introduc(?:es|ed)|propos(?:es|ed)|tabled)\b{_NEAR}\b{_LAW}\b"
        rf"|\b{_LAW} (?:was |is )?(?:introduced|proposed)"
        rf"|\bdraft {_LAW}\b|\bnotice of proposed rulemaking|\bproposed rule\b"
        r"|\b(?:opens?|opened|launch(?:es|ed)?|public) consultation|\bconsultation (?:paper|draft|on)\b"
        rf"|征求意见|(?:提出|提交){_NEAR_ZH}(?:法案|修正案)|(?:法案|修正案){_NEAR_ZH}(?:被|获)?提出"
    ),
    RuleStage.PASSED: (
        rf"\bpass(?:es|ed)? (?:the |by the |in the )?(?:state |full |upper |lower )?{_CHAMBER}\b"
        rf"|\bclear(?:s|ed)? (?:the )?[^,.;]{{0,20}}\b{_CHAMBER}\b|\b{_CHAMBER} (?:approv|pass|adopt)(?:es|ed)\b"
        rf"|{_CHAMBER_ZH}{_NEAR_ZH}(?:通过|表决通过)|{_LAW_ZH}{_NEAR_ZH}(?:在|获|经){_NEAR_ZH}{_CHAMBER_ZH}[^，。；]{{0,4}}通过"
    ),
    RuleStage.ADOPTED: (
        rf"\bsign(?:s|ed)?\b{_NEAR} into law|\benact(?:s|ed)\b|\bfinal (?:text|rule|version)\b"
        rf"|\bfinal {_LAW}\b|\bfinali[sz](?:es|ed)\b{_NEAR}{_LAW}"
        rf"|\b(?:formally |officially )?adopt(?:s|ed)\b{_NEAR}\b{_LAW}\b"
        rf"|\b{_LAW} (?:was |is |has been )?(?:signed|adopted|enacted|finali[sz]ed)\b"
        rf"|签署{_NEAR_ZH}{_LAW_ZH}|{_LAW_ZH}{_NEAR_ZH}(?:签署|颁布|正式通过)|正式通过|定稿|颁布"
    ),
    RuleStage.IN_FORCE: (
        r"\b(?:enters?|entered|came|comes?) into force|\bin force\b|\btak(?:es|en) effect\b|\btook effect\b"
        r"|\beffective (?:from|on|as of)\b|\bappl(?:y|ies) from\b|生效|施行|起适用|正式实施"
    ),
    RuleStage.HALTED: (
        r"\bwithdr(?:aws|awn|ew)\b|\bstruck down\b|\bstrikes down\b|\brepeal(?:s|ed)?\b|\brevoked?\b"
        r"|\b(?:delay(?:s|ed)?|postpone[sd]?)\b[^,.;]{0,30}"
        r"\b(?:application|obligations?|deadline|entry into force|effective)"
        r"|撤回|(?<!可)废止|废除|推迟|延后|暂缓|被裁定无效|裁定[^，。；]{0,6}无效"
    ),
}
_CASE_WORDS: dict[CaseStage, str] = {
    CaseStage.FILED: (
        r"\b(?:sues|sued|lawsuit|files? (?:a )?(?:suit|complaint)|filed (?:a )?(?:suit|complaint))\b|起诉|提起诉讼"
    ),
    CaseStage.INJUNCTION: r"\b(?:preliminary |temporary )?injunction\b|\brestraining order\b|禁令",
    CaseStage.RULING: (
        r"\b(?:court|judge)\b[^,.;]{0,30}\b(?:rul(?:es|ed)|upheld|upholds|struck|strikes|dismiss(?:es|ed)|found|finds)\b"
        r"|\bstruck down\b|\bupheld\b|\bruling\b|\bverdict\b|\bjudgment\b"
        r"|\binjunction (?:is |was )?(?:lifted|dissolved|vacated)"
        r"|\b(?:lift(?:s|ed)?|dissolv(?:es|ed)|vacat(?:es|ed)) (?:the |its )?(?:preliminary )?injunction"
        r"|判决(?!预测|的|一致)|裁定|驳回|解除[^，。；]{0,6}禁令|维持原"
    ),
    CaseStage.APPEAL: r"\bappeal(?:s|ed)?\b|\bappellate\b|上诉|二审|终审",
}


def _compiled(words: dict[RuleStage, str] | dict[CaseStage, str], prefix: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?P<{prefix}{int(s)}>{p})" for s, p in words.items()), re.IGNORECASE)


_RULE = _compiled(_RULE_WORDS, "r")
_CASE = _compiled(_CASE_WORDS, "c")
_TRACKS: dict[str, tuple[re.Pattern[str], type[IntEnum]]] = {"rule": (_RULE, RuleStage), "case": (_CASE, CaseStage)}

_CONTEXT = re.compile(
    r"\b(?:bills?|legislat\w+|statutes?|regulators?|regulatory|senate|parliament|congress|court|judge|injunction"
    r"|lawsuit|rulemaking|consultation|ministry|(?:SB|AB|HB|H\.R\.|S\.)\s?\d{2,5})\b"
    r"|法案|条例|立法|监管|法院|禁令|原告|被告|征求意见|议院|议会|国会|指南|(?:规则|规定|办法|法规)(?:定稿|草案|征求意见稿)"
    r"|《[^》]{1,24}(?:法|条例|规定|办法)》",
    re.IGNORECASE,
)
"""A bill, a law, a regulator, a legislature or a court named: "scaling law", "a rule-based reward"
and "the draft model" tell no rule's stage."""
_NAMED_BODY = re.compile(r"\b(?:Act|Assembly|House)\b")
"""An act or a chamber by its capitalised name ("the AI Act", "the Assembly"), not an agent's act."""
_PROSPECT = re.compile(
    r"(?:\b(?:may|might|could|would|will|to be|expected to|likely to|if|not|yet to)\b|可能|或将|将|拟|预计|尚未|未)"
    r"[^,.;:，。；：]{0,16}$",
    re.IGNORECASE,
)
"""A stage only in prospect or denied ("would take effect", "尚未生效")
ranks just below it: news after the stage before, not after the stage itself."""


def legal_ranks(text: str) -> dict[str, float]:
    """The latest stage ``text`` tells on each legal track it tells ("rule", "case"), a stage only in
    prospect just below it; empty for a text naming no bill, law, regulator, legislature nor court."""
    if not _CONTEXT.search(text) and not _NAMED_BODY.search(text):
        return {}
    ranks: dict[str, float] = {}
    for track, (pattern, _) in _TRACKS.items():
        for match in pattern.finditer(text):
            stage = int((match.lastgroup or "x1")[1:])
            rank = stage - 0.5 if _PROSPECT.search(text[max(0, match.start() - 24) : match.start()]) else stage
            ranks[track] = max(ranks.get(track, rank), rank)
    return ranks


def legal_moved(claim: str, passage: str) -> str | None:
    """ "<earlier> → <later>" when the claim tells a later stage than the passage on a legal track
    both tell, else None."""
    now, then = legal_ranks(claim), legal_ranks(passage)
    for track in now.keys() & then.keys():
        if now[track] > then[track]:
            return f"{_label(track, then[track])} → {_label(track, now[track])}"
    return None


def legal_told(claim: str, passage: str) -> bool | None:
    """Whether the passage tells each legal stage the claim tells, as late or later on its track
    (one telling no stage on that track does not); None for a claim that tells none."""
    now = legal_ranks(claim)
    if not now:
        return None
    then = legal_ranks(passage)
    return all(track in then and then[track] >= rank for track, rank in now.items())


def legal_overtaken(claim: str, records: list[str]) -> str | None:
    """ "<earlier> → <later>" when ``records`` (the claim's item's) tell stages on a legal track the claim
    tells and the latest of them is earlier than the claim's, whichever passage is weighed: probe 35's
    "the court struck down SB 88's mandate" was weighed against its record's TLDR, which tells no
    stage, while its key point told the injunction."""
    told = [legal_ranks(text) for text in records]
    for track, rank in legal_ranks(claim).items():
        latest = max((ranks[track] for ranks in told if track in ranks), default=None)
        if latest is not None and latest < rank:
            return f"{_label(track, latest)} → {_label(track, rank)}"
    return None


def _label(track: str, rank: float) -> str:
    stage = _TRACKS[track][1](int(rank + 0.5)).name.lower().replace("_", " ")
    return stage if rank == int(rank) else f"possibly {stage}"
