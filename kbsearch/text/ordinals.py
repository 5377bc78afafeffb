"""Numerals that count something off (a trial's phase, a disease's stage, the third of a
series) rather than name it: IIa, III, Phase 2a, Ph2, I/II 期, Stage IIIB, FIH.

Probe 50: "ISO-117 IIa 期顶线之后…" was set apart from "ISO-117 Phase 2a topline …", its
first report in English, though the learned decision said one item (1.00): the names rule
read "IIa" (capitals and a small letter, as a coined name is written) and the English
title's capitalised "Phase" as two names each record never mentions. Both are one trial
phase, written in two languages. A phase, a stage or an ordinal is what an item is at,
never what it is: two drugs can both be in Phase 2a, and one drug's retelling writes its
phase as IIa 期, Ⅱa 期, Phase 2a or Ph2a. So none of them is a name to any name reader.

A Roman numeral is read as one everywhere only where no acronym has its shape: with a small
letter after it (IIa, IIIb: an acronym is in capitals) or of three letters or more (III, VII,
XIV, XXI). Two capitals (II, IV, VI) are often acronyms (IV for instrumental variables, VI for
value iteration in the dev digests), and so is a numeral with a capital after it (VC, IB,
VIB); each is an ordinal only where its head word or 期 says so ("Type II", "Phase IIB",
"class III", "IIB 期"). A two-letter name never counts as rare anyway (``dedupe.names``).
"""

from __future__ import annotations

import re
from functools import lru_cache

ROMAN = r"(?:X{0,3}(?:IX|IV|VI{0,3}|I{1,3})|X{1,3})"
"""A Roman numeral from 1 to 39, in capitals: the phases, stages and ordinals a text writes."""
NUMERAL = rf"(?:{ROMAN}|[1-4])(?:[a-c]|[A-C](?![a-z]))?"
"""A phase's or stage's numeral, with its part (2a, IIb, IIIB, Ib)."""
_RANGE = rf"{NUMERAL}(?:\s*[/／–-]\s*{NUMERAL})?"

# The words a numeral counts off after them (Phase, Stage, Grade, Class, Type) and a phase
# abbreviated (Ph2, Ph 1b: "Ph" only before digits, else it is Phi-4), and 期 (a phase), 类 (a
# device class) and 级 (a grade) after the numeral in Chinese.
_AFTER_HEAD = re.compile(
    rf"(?<![A-Za-z])(?:((?i:phase|stage|grade|class|type))\s*-?\s*|(Ph)\.?\s?(?=\d))({_RANGE})(?![A-Za-z0-9])"
)
_BEFORE_ZH = re.compile(rf"(?<![A-Za-z0-9\-])({_RANGE})\s*(?:期|类|级)")
_FIRST_IN_HUMAN = re.compile(r"(?<![A-Za-z0-9\-])FIH(?![A-Za-z0-9\-])")
_HINT = re.compile(r"(?i:phase|stage|grade|class|type)|Ph\.?\s?\d|期|类|级|FIH")
_PARTS = re.compile(r"[A-Za-z0-9]+")

_ANY_WHERE = re.compile(rf"{ROMAN}[a-c]|(?=[IVX]{{3}}){ROMAN}[a-c]?")
"""A Roman numeral that is no acronym wherever it stands: a small letter after it, or three letters or more."""


def is_ordinal(word: str) -> bool:
    """Whether ``word``, as written, is a Roman numeral no acronym shares (IIa, IIIb, III, XIV)."""
    return _ANY_WHERE.fullmatch(word) is not None


# What ``ordinal_words`` may give, lower-cased: a numeral (2a, iib, iii), an abbreviated phase, FIH
# or a head word. A name reader asks it only for the names of this shape it read (``ordinals_among``).
_SHAPE = re.compile(
    r"(?:x{0,3}(?:ix|iv|vi{0,3}|i{1,3})|x{1,3}|[1-4])[a-c]?|ph\d[a-c]?|fih|phase|stage|grade|class|type"
)


def ordinals_among(names: frozenset[str] | set[str], text: str) -> frozenset[str]:
    """The names (lower-cased) read from ``text`` that count off a phase or stage there
    (``ordinal_words``); read only when one has the shape: most texts' names have none."""
    shaped = frozenset(n for n in names if _SHAPE.fullmatch(n))
    return shaped & ordinal_words(text) if shaped else shaped


@lru_cache(maxsize=1 << 13)  # a record's text is read by several name readers
def ordinal_words(text: str) -> frozenset[str]:
    """The Latin words of ``text`` that count off a phase, stage, grade or class, lower-cased:
    the head word (phase, stage), its numeral (2a, iia, iiib) and an abbreviated phase (ph2),
    and FIH (first in human). None of them is a name (``features.latin_names``)."""
    if _HINT.search(text) is None:  # most texts name no phase: one pass to find none
        return frozenset()
    words: set[str] = set()
    for match in _AFTER_HEAD.finditer(text):
        head, abbreviated, numerals = match.groups()
        words.update(part.lower() for part in _PARTS.findall(numerals))
        if head:
            words.add(head.lower())
        elif abbreviated:
            words.add(re.sub(r"[\s.]", "", match.group(0)).lower())  # Ph2, Ph 1b: one word as read
    for match in _BEFORE_ZH.finditer(text):
        words.update(part.lower() for part in _PARTS.findall(match.group(1)))
    if _FIRST_IN_HUMAN.search(text):
        words.add("fih")
    return frozenset(w for w in words if not w.isdigit())
