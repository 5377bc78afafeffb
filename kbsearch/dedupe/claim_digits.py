"""Lone digits a claim gives that its item's records never give, in digits or in words."""

from __future__ import annotations

import re

from kbsearch.dedupe.citations import without_citations
from kbsearch.dedupe.rules import Embedded
from kbsearch.text.textsim import numbers, substantive_numbers

_WORDS = {
    "0": ("zero", "零"),
    "1": ("one", "一", "单"),
    "2": ("two", "二", "两", "双"),
    "3": ("three", "三"),
    "4": ("four", "四"),
    "5": ("five", "五"),
    "6": ("six", "六"),
    "7": ("seven", "七"),
    "8": ("eight", "八"),
    "9": ("nine", "九"),
}
"""How a record may write a lone digit instead: a retelling in the other language often does."""

_COUNT = re.compile(
    r"(?<![A-Za-z0-9_.\-/])(?<!version )(?<!phase )(?<!stage )(?<!step )(\d)"
    r"(?:\s*(?:个|项|种|款|类|家|名|位|条|篇|次|轮|组|套|台|部|步)|\s+(?:[a-z]+\s+)?[a-z]+s\b)",
    re.IGNORECASE,
)
"""A lone digit counting something: "3 个目标模型", "4 new benchmarks". Not a name's digit
("Argoverse 2", "3D"), a list marker ("1."), a version or a stage ("version 2 adds")."""


def digits_unstated(claim: str, same_items: list[Embedded]) -> set[str]:
    """The lone digits the claim counts with (3 target models, 5 languages) that no
    same-item record gives, in digits, in English or in Chinese words.

    ``substantive_numbers`` leaves a lone digit out (a list marker, a step), so the number
    rules let a claim adding one pass. The cosine decision reads no words across languages:
    "v2 新增 3 个目标模型" was known at the judge's cosine 0.85 from the record of the attack's
    first version, which names no model count (probe 46). A claim whose only tie to its
    record is that cosine has told something else when it counts what the record never
    counts. Citations ("12-14锚定") are read out first."""
    lone = {m.group(1) for m in _COUNT.finditer(without_citations(claim))} - substantive_numbers(claim)
    if not lone:
        return set()
    texts = [f"{k.record.title}\n{k.text_and_claims}".lower() for k in same_items]
    # A record counting the same way states the digit: "kept in 3 bits" beside "kept in 3 bits".
    counted = {m.group(1) for text in texts for m in _COUNT.finditer(without_citations(text))}
    stated = counted.union(*(numbers(text) for text in texts))
    return {d for d in lone if d not in stated and not any(w in text for w in _WORDS[d] for text in texts)}
