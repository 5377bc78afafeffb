"""Which phase a clinical trial is in, as a sentence says it in Chinese or English
(``stages`` reads software's and papers' tracks, ``deals`` a deal's, ``legal`` a rule's).

A drug moves from its first-in-human study through Phase 1, 2 and 3; a later phase reached,
or a phase started that was only planned, is news, though the claim shares nearly every word
with the sentence that told the earlier phase ("ISO-117 进入 III 期" against "ISO-117 Phase 2
topline"): the claim decision reads them as one. One phase written two ways is the same phase:
IIa 期, Ⅱa 期, Phase 2a, Phase IIa and Ph2a are one; "Phase 2" against "IIa 期" names the
phase without its part, and is no move (probe 50 retold "Phase 2a topline" as "IIa 期顶线").
A combined trial (Phase 1/2, I/II 期) is at its later phase.

A phase to come ("plans to start Phase 3", "计划 2027 年开始 IIb 期") ranks just below that
phase: news after an earlier phase, and a move when it is later said started. "Phase" and
期 have other senses ("in phase 2 the model is fine-tuned", 二期工程, 第 3 期), so a phase is
read only where the claim or the passage weighed is about a trial (``_CONTEXT``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from kbsearch.text.later_steps import NOT_YET

_NUMBERS = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "one": 1, "two": 2, "three": 3, "four": 4}
_NUMBERS |= {"一": 1, "二": 2, "三": 3, "四": 4, "Ⅰ": 1, "Ⅱ": 2, "Ⅲ": 3, "Ⅳ": 4}
_NUMERAL_EN = r"(?:IV|I{1,3}|[1-4]|(?i:one|two|three|four))(?:[a-c]|[A-C](?![a-z]))?"
_NUMERAL_ZH = r"(?:IV|I{1,3}|[1-4Ⅰ-Ⅳ一二三四])(?:[a-c]|[A-C](?![a-z]))?"
_PHASE = re.compile(
    rf"(?<![A-Za-z])(?:(?i:phase)\s*-?\s*|Ph\.?\s?(?=\d))(?P<en>{_NUMERAL_EN}(?:\s*[/–-]\s*{_NUMERAL_EN})?)"
    r"(?![A-Za-z0-9])"
    rf"|(?<![A-Za-z0-9\-第])(?P<zh>{_NUMERAL_ZH}(?:\s*[/／]\s*{_NUMERAL_ZH})?)\s*期(?![间限待望刊货末中初])"
    r"|(?P<first>first[- ]in[- ]human|(?<![A-Za-z])FIH(?![A-Za-z])|首次人体)",
)
_CONTEXT = re.compile(
    r"\b(?:clinical|patients?|dos(?:e|es|ed|ing)|IND|FDA|EMA|NMPA|topline|placebo|enrol(?:l?ed|l?ment)|drugs?"
    r"|inhibitors?|healthy volunteers|endpoints?|first[- ]in[- ]human)\b"
    r"|临床|患者|受试者|入组|给药|顶线|安慰剂|终点|志愿者|药",
    re.IGNORECASE,
)
_HINT = re.compile(r"(?i:phase)|Ph\.?\s?\d|期|first[- ]in[- ]human|FIH|首次人体")
_LOOK_BACK = 24  # as ``later_steps``: "计划于 2027 年下半年开始 IIb 期" says the phase is to come
_PROSPECT = re.compile(NOT_YET.pattern.replace("{0,12}", "{0,18}"), NOT_YET.flags)


class Phase(NamedTuple):
    """A trial's phase: its number, its part (a = 1, b = 2; 0 for none) and whether it is reached."""

    number: int
    part: int
    reached: bool

    def label(self) -> str:
        written = f"phase {self.number}{' abc'[self.part].strip()}"
        return written if self.reached else f"planned {written}"


def _phase(numeral: str) -> tuple[int, int]:
    """(number, part) of one numeral: IIa → (2, 1), 3 → (3, 0), 二 → (2, 0)."""
    part = numeral[-1].lower() if numeral[-1] in "abcABC" and len(numeral) > 1 else ""
    root = numeral[:-1] if part else numeral
    number = int(root) if root.isdigit() else _NUMBERS[root.lower() if root.isascii() else root]
    return number, " abc".index(part) if part else 0


@lru_cache(maxsize=1 << 12)
def latest_phase(text: str, about_a_trial: bool) -> Phase | None:
    """The latest phase ``text`` tells, reached or to come, or None: none named, or, unless
    ``about_a_trial``, a text that is not about a trial (``_CONTEXT``)."""
    if _HINT.search(text) is None or not (about_a_trial or _CONTEXT.search(text)):
        return None
    said = []
    for match in _PHASE.finditer(text):
        numerals = match["en"] or match["zh"]
        number, part = max(map(_phase, re.split(r"\s*[/／–-]\s*", numerals))) if numerals else (1, 0)
        reached = _PROSPECT.search(text[max(0, match.start() - _LOOK_BACK) : match.start()]) is None
        said.append(Phase(number, part, reached))
    return max(said, default=None)


def _later(now: Phase, then: Phase) -> bool:
    """Whether ``now`` is past ``then``: a later phase, a later part of one (2a → 2b), or a phase
    started that was planned. A phase named without its part is the phase with it (Phase 2 = IIa 期)."""
    if now.number != then.number:
        return now.number > then.number
    if now.part and then.part and now.part != then.part:
        return now.part > then.part
    return now.reached and not then.reached


def phase_moved(claim: str, passage: str) -> str | None:
    """ "<earlier> → <later>" when the claim tells a later phase than the passage, else None
    (either tells none, neither is about a trial, or the claim's is not later)."""
    trial = _CONTEXT.search(claim) is not None or _CONTEXT.search(passage) is not None
    now, then = latest_phase(claim, trial), latest_phase(passage, trial)
    if now is None or then is None or not _later(now, then):
        return None
    return f"{then.label()} → {now.label()}"


def phase_told(claim: str, passage: str) -> bool | None:
    """Whether the passage tells the phase the claim tells, as late or later (one telling no
    phase does not); None for a claim that tells none."""
    trial = _CONTEXT.search(claim) is not None or _CONTEXT.search(passage) is not None
    if latest_phase(claim, trial) is None:
        return None
    return latest_phase(passage, trial) is not None and phase_moved(claim, passage) is None
