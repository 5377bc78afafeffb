"""Whether a claim says the opposite of a passage about the same thing: "HexKV 现在支持
SGLang" against "SGLang 尚不支持", "不提供 vLLM 插件" against "提供 vLLM 插件".

The claim decision reads the two as one sentence (they share nearly every word), so a
reversed fact came out known and an UPDATE a DUPLICATE. ``reverses`` tells them apart, as
``stages.moved_on`` does for a later stage and ``quantities.new_figures`` for a figure.

A stance is a verb of a few kinds (support, provide, use, open-source) and
its object: the words after it to the end of its clause, or, when none follow
("SGLang 尚不支持") or it is a participle ("SGLang is not supported"), the few words
before it too. A verb after a comparison in its clause ("优于未使用 X 的模型", "better
than models without X") tells a baseline, not a stance, and is not read. A
negation counts only written onto the verb ("不支持", "does not support", "without"),
so an unrelated negation elsewhere in the sentence flips nothing, and two stances
oppose only when their objects share a name or word ("支持 SGLang" and "不支持 FP8"
do not). A passage that also states the claim's stance on that object is not reversed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from kbsearch.text.stages import UNSTATED

REVERSES = "reverses"
"""How ``reverses`` begins what it returns, which claim lines show as it is."""

_CLAUSE = re.compile(r"[，。；;：:！？!?\n（）()]|[,.](?=\s|$)|\bbut\b|但(?:是)?")
_ZH_NEGATION = r"(?:尚不|暂不|仍不|还不|并不|也不|均不|都不|不再|尚未|暂未|并未|还未|仍未|从未|没有|无法|不能|未|不|没)"
_EN_NEGATION = r"(?:(?:does|do|did|will|can|could|would)\s*(?:not|n't)|cannot|won't|no longer|never)\s+(?:yet\s+)?"
_PASSIVE_NEGATION = r"(?:(?:(?:is|are|was|were|be)\s+(?:still\s+|currently\s+)?)?(?:not\s+(?:yet\s+)?|no longer\s+)|un)"
_KINDS: dict[str, tuple[str, str, str]] = {
    # kind: (Chinese verb, English verb, English participle)
    "support": ("支持", r"support(?:s|ing)?", "supported"),
    "provide": ("提供", r"(?:provide|offer)(?:s|ing)?", r"(?:provided|offered)"),
    "use": (r"(?:使用|采用|利用|(?<![费作信通效可试调引运占应])用(?![于户]))", r"(?:use|employ)(?:s|ing)?", "used"),
    "open": ("开源", r"open[- ]sources?", r"open[- ]sourced"),
}
# Not read: need/require and with/without. "avoiding the need for X" beside "without
# requiring X", "with minimal training" beside "without substantial training" say the same
# thing in opposite words (two English dev claims were called reversed this way).


_ENDS = r"(?:drop(?:s|ped|ping)?|remov(?:es?|ed|ing)|end(?:s|ed|ing)?|stop(?:s|ped|ping)?|discontinu(?:es?|ed|ing))"
_ENDED_SUPPORT = [
    # Support ended: "drops support for its 1.x plugins", "stopped supporting X", "removes Python 3.8
    # support", "support for X has been removed", 移除了对 X 的支持, 停止支持 X. Its object inside the
    # words is the group ``o…`` (``_stance``). A plain 不再/"no longer" is a negation on the verb.
    rf"(?P<xn>(?<![-\w]){_ENDS}\s+(?:(?:its|the|their|official|native)\s+)*support\s+(?:for|of)\b"
    r"|\bstop(?:s|ped|ping)?\s+supporting\b)",
    r"(?P<yn>\b(?:drop(?:s|ped|ping)?|remov(?:es?|ed|ing))\s+(?P<o1>(?:[\w.+-]+\s+){1,3}?)support\b)",
    r"(?P<vn>\bsupport\s+for\s+(?P<o2>[^,;:]{1,30}?)\s+(?:(?:has|have) been|was|were|is|are)\s+"
    r"(?:dropped|removed|discontinued|ended)\b)",
    r"(?P<cn>(?:移除|去掉|删除|停止|取消|放弃|终止|结束)了?(?:对(?P<o3>[^，。；,;的]{1,20})的)?支持)",
    r"(?P<dn>(?:移除|去掉|删除)了?(?P<o4>[^，。；,;的并和且而以可来与及]{2,16}?)支持)",
    r"(?P<fn>对(?P<o5>[^，。；,;的]{1,20})的支持(?:已经?|也)?(?:被)?(?:移除|取消|停止|终止|去掉|删除))",
]
"""Negated stances of support whose negation is a verb of ending it, not a "not" on it."""


def _pattern(kind: str) -> re.Pattern[str]:
    zh, en, done = _KINDS[kind]
    negated = [
        rf"(?P<zn>{_ZH_NEGATION}{zh})",
        rf"(?P<en>\b{_EN_NEGATION}{en}\b)",
        rf"(?P<pn>\b{_PASSIVE_NEGATION}{done}\b)",
    ]
    if kind == "support":
        negated.append(r"(?P<sn>\b(?:lacks?|lacking|no|without)\s+(?:native\s+)?support\s+for\b)")
        negated += _ENDED_SUPPORT
    if kind == "use":
        negated.append(r"(?P<wn>\bwithout (?:using|use of)\b)")
    positive = rf"(?P<zp>{zh})|(?P<dp>\b{done}\b)|(?P<ep>\b{en}\b)"
    return re.compile("|".join(negated) + "|" + positive, re.IGNORECASE)


_PATTERNS = {kind: _pattern(kind) for kind in _KINDS}
_LATIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+\-]*[A-Za-z0-9_+]|[A-Za-z]")
_CJK = re.compile(r"[\u4e00-\u9fff]+")
_STOP = frozenset(
    re.findall(
        r"\S+",
        "a an the of for to in on at by and or yet now also only any its their it this that these those as is are "
        "be been was were still currently already all some more longer natively out-of-the-box",
    )
)
_ZH_STOP = re.compile(
    r"即可|目前|当前|现在|现已|已经|仍然|依然|暂时|只有|只|仅|也|均|都|还|尚|暂|仍|已|了|的|并|再|可以|能够"
)
OBJECT_CHARS = 24
"""How far an object reaches from its verb: a clause's first few words."""
_OBJECT_END = re.compile(r"的|即可|从而|以便|并且|而且|来|就|\b(?:to|that|which|so)\b", re.IGNORECASE)
"""Where a Chinese object ends before its clause does: "无需训练即可识别…" needs no
training; "未使用去正面化的模型" names the model, not what it used."""
_BASELINE = re.compile(
    r"优于|高于|低于|超越|超过|胜过|相比|对比|比(?![特例率值重])|较"
    r"|\b(?:than|compared|versus|vs|relative to|outperform\w*|surpass\w*|beat\w*)\b",
    re.IGNORECASE,
)
"""Before a verb in its clause: a baseline ("优于未使用 X 的模型", "超越需训练的方法",
"better than models without X") compared with, not a stance of the text."""


@dataclass(frozen=True)
class Stance:
    kind: str
    negated: bool
    latin: frozenset[str]
    bigrams: frozenset[str]
    words: str
    """The verb and its object as written, for the reason shown."""

    def same_object(self, other: Stance) -> bool:
        """Both name one thing: a shared name or word, or (in Chinese) two shared
        character pairs, one when either object is a single word ("代码")."""
        if self.kind != other.kind:
            return False
        if self.latin & other.latin:
            return True
        shared = len(self.bigrams & other.bigrams)
        return shared >= min(2, len(self.bigrams), len(other.bigrams)) and shared > 0


def _object(text: str) -> tuple[frozenset[str], frozenset[str]]:
    latin = frozenset(t.lower() for t in _LATIN.findall(text) if not t.isdigit()) - _STOP
    chinese = _ZH_STOP.sub(" ", " ".join(_CJK.findall(text)))
    bigrams = frozenset(run[i : i + 2] for run in chinese.split() for i in range(len(run) - 1))
    return latin, bigrams


def stances(text: str) -> list[Stance]:
    """Each stance the text takes, clause by clause."""
    return list(_stances(text))


@lru_cache(maxsize=1 << 12)
def _stances(text: str) -> tuple[Stance, ...]:
    """``stances``, kept: a warm process reads the same candidates' passages check after check."""
    out = []
    for clause in _CLAUSE.split(text):
        for kind, pattern in _PATTERNS.items():
            for match in pattern.finditer(clause):
                if not _BASELINE.search(clause[: match.start()]):
                    out.append(_stance(kind, clause, match))
    return tuple(s for s in out if s.latin or s.bigrams)


def _stance(kind: str, clause: str, match: re.Match[str]) -> Stance:
    """The verb's object: what follows it; what precedes it too when it is a participle
    ("SGLang is supported since v0.3"), or alone when nothing follows ("SGLang 尚不支持")."""
    negated = (match.lastgroup or "").endswith("n")
    inside = next((v for k, v in match.groupdict().items() if k.startswith("o") and v), None)
    after = inside or _OBJECT_END.split(clause[match.end() :], maxsplit=1)[0]
    if len(after) > OBJECT_CHARS:  # cut at a word's end
        after = after[:OBJECT_CHARS].rsplit(" ", 1)[0] if " " in after[:OBJECT_CHARS] else after[:OBJECT_CHARS]
    latin, bigrams = _object(after)
    words = (match.group(0) if inside else match.group(0) + after).strip()
    passive = match.lastgroup in ("pn", "dp")
    if passive or not (latin or bigrams):
        before = _just_before(clause[: match.start()])
        latin_before, bigrams_before = _object(before)
        latin, bigrams = latin | latin_before, bigrams | bigrams_before
        words = (before + match.group(0) + (after if passive else "")).strip()
    return Stance(kind, negated, latin, bigrams, " ".join(words.split()))


def _just_before(text: str) -> str:
    """The last few words before a verb: its subject, not the whole clause's."""
    if " " in text.strip():
        return " ".join(text.split()[-BEFORE_WORDS:]) + " "
    return text[-OBJECT_CHARS // 2 :]


BEFORE_WORDS = 3


def reverses(claim: str, passage: str) -> str | None:
    """ "reverses: <passage's words> → <claim's>" when the claim takes the opposite stance
    to the passage on one thing and the passage nowhere takes the claim's; else None."""
    for mine, theirs in _reversed(claim, stances(passage)):
        return f"{REVERSES}: {theirs.words} → {mine.words}"
    return None


def restates(claim: str, passage: str, against: str) -> bool:
    """Whether the passage takes each stance of the claim that ``against`` reverses (true
    when it reverses none): another record saying "支持 SGLang" makes the claim no news
    beside "SGLang 尚不支持", a record silent on SGLang does not."""
    reversed_ = _reversed(claim, stances(against))
    taken = stances(passage) if reversed_ else []
    return all(any(s.negated == mine.negated and mine.same_object(s) for s in taken) for mine, _ in reversed_)


def _reversed(claim: str, passage_stances: list[Stance]) -> list[tuple[Stance, Stance]]:
    """Each stance of the claim with a stance of the passage opposing it, when the passage
    takes the claim's own on that thing nowhere."""
    out = []
    for mine in stances(claim) if passage_stances else []:
        opposed = [s for s in passage_stances if s.negated != mine.negated and mine.same_object(s)]
        if opposed and not any(s.negated == mine.negated and mine.same_object(s) for s in passage_stances):
            out.append((mine, opposed[0]))
    return out


def moved_label(moved: str) -> str:
    """How a claim line names why it is new though said: "reverses: …" as it is, a stage
    "moved on: review → merged"."""
    return moved if moved.startswith(REVERSES) else f"moved on: {moved}"


def why_new(moved: str) -> str:
    """The clause after a NEW claim's score when its passage says it but for ``moved``."""
    if moved.startswith(REVERSES):
        return "but says the opposite"
    return "but its records never tell that" if moved.startswith(UNSTATED) else "but at an earlier stage"
