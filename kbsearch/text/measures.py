"""What a figure measures, as far as its own clause tells: a record that states 71%
for a prefetch hit rate has not stated a claim's 71% drop in memory.

A figure's measure is the words of the clause around it (split at commas, colons,
semicolons and full stops). Two clauses in one language that share no word rarely
measure one thing; two in different languages share none whatever they measure, so
across languages a figure's value is all there is to go by and this module never
speaks. Rewording within a language can also leave two clauses of one quantity with
no word in common ("TTFT 降低 31%" and "首 token 延迟下降 31%"), so a lack of shared
words alone is no evidence: the record must also give the claim's quantity, in a
clause sharing the claim's words, another figure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from kbsearch.text.quantities import could_be_changed, figure_value, same_figure, set_against
from kbsearch.text.textsim import language, lexical_tokens, numbers, substantive_numbers
from kbsearch.text.told_changes import figures_changed

_CLAUSE_END = re.compile(r"[，。；;：:！？!?\n]|[,.](?=\s)")
_DIGITS = re.compile(r"\d[\d.,]*")


@dataclass(frozen=True)
class Clause:
    figures: frozenset[str]
    words: frozenset[str]
    language: str
    against: frozenset[str] = frozenset()
    """Its figures it sets against another or gives as another source's (``quantities.set_against``)."""

    def gives(self, figure: str) -> bool:
        return any(same_figure(figure, mine) for mine in self.figures)


MEASURE_WORDS = 2
"""A clause with fewer words than this names nothing it measures ("19.83 到 25.82" in a
list of figures): it belongs to the clause before it."""


def clauses(text: str) -> list[Clause]:
    """The clauses of a text, each with its figures and words (digits left out)."""
    out: list[Clause] = []
    for part in _CLAUSE_END.split(text):
        words = frozenset(lexical_tokens(_DIGITS.sub(" ", part)))
        figures = frozenset(numbers(part))
        against = frozenset(set_against(part)) if figures else frozenset()
        if out and len(words) < MEASURE_WORDS:
            last = out[-1]
            out[-1] = Clause(last.figures | figures, last.words | words, last.language, last.against | against)
        elif words or figures:
            out.append(Clause(figures, words, language(part), against))
    return out


def measured_elsewhere(claim: str, known_clauses: Iterable[Clause]) -> set[str]:
    """The claim's figures that the known clauses (``clauses`` of the records' texts) state
    only for another quantity: every clause giving the figure shares no word with the
    claim's clause of it, while a clause in that language sharing its words gives another figure."""
    results = substantive_numbers(claim)
    if not results:  # most claims: no figure to place
        return set()
    known = list(known_clauses)
    elsewhere: set[str] = set()
    for own in clauses(claim):
        for figure in own.figures & results:
            giving = [c for c in known if c.gives(figure)]
            if not giving or any(c.language != own.language or c.words & own.words for c in giving):
                continue
            if any(c.language == own.language and c.words & own.words and c.figures for c in known):
                elsewhere.add(figure)
    return elsewhere


_NAMING = 2
"""A word of one letter or character (在, 上, the B left of 70B) names no quantity."""


def measured_again(claim: str, known_clauses: Iterable[Clause]) -> set[str]:
    """The records' figures the claim quotes only to set a figure of its own against, for the
    same quantity: "a rerun measured only a 28% TTFT drop, below the 35% in the release note"
    against a record's "TTFT 下降 35%". The claim's 28% is a second measurement of what the
    record gives as 35%, not detail of it (``quantities.new_figures`` reads these as figures
    the claim replaces). Same quantity: a clause of the records giving the quoted figure
    shares a word with the claim's clause of its own figure, in either language (a shared
    name such as TTFT is evidence across languages too; a single letter or character is
    none). A figure the record itself gives as a bound or as another's ("低于10%") is no
    figure the claim sets its own against. A figure the claim says its quantity changed from
    ("由 38% 提升到 41%": ``told_changes.figures_changed``) is quoted so too, when the records lack the
    one it changed to: often a baseline the method beats, which the records give with the gain."""
    known = list(known_clauses)
    quoted = set_against(claim) | {
        figure
        for start, end in figures_changed(claim)
        if end and not any(c.gives(f) for f in end for c in known)
        for figure in start
    }
    if not quoted:  # most claims: nothing set against
        return set()
    results = substantive_numbers(claim)
    again: set[str] = set()
    for own in clauses(claim):
        for figure in own.figures & results:
            if figure in quoted or any(c.gives(figure) for c in known):
                continue  # the quoted one itself, or a figure the records state
            for c in known:
                if not any(len(word) >= _NAMING for word in c.words & own.words):
                    continue
                again |= {
                    s
                    for s in c.figures - c.against
                    if not same_figure(figure, s)
                    and could_be_changed(figure, s)
                    and any(same_figure(s, q) for q in quoted)
                }
    return again


def given_otherwise(claim: str, passage_clauses: Iterable[Clause], any_unit: bool = False) -> set[str]:
    """The claim's figures for which the passage (``clauses`` of one passage) gives another
    figure of the same quantity and never the claim's: tom's "TTFT 降低 41%" for a card's
    "TTFT 降低 47%". Same quantity as in ``measured_again``: the two clauses share a word
    of two letters or characters or more. A figure the passage gives as a bound or as
    another's (``Clause.against``), or one the claim itself states too, is no other figure.
    The other figure is one the claim's can be changed from (``could_be_changed``), or with
    ``any_unit`` a measured one in any unit (``_measured_other``): "2M token 上下文" against
    "上下文长度提升 3.6 倍"."""
    results = substantive_numbers(claim)
    if not results:
        return set()
    known = list(passage_clauses)
    own_clauses = clauses(claim)
    claimed = [f for own in own_clauses for f in own.figures]
    otherwise: set[str] = set()
    for own in own_clauses:
        for figure in own.figures & results:
            if any(c.gives(figure) for c in known):
                continue
            for c in known:
                if not any(len(word) >= _NAMING for word in c.words & own.words):
                    continue
                if any(
                    (_measured_other(s, claimed) if any_unit else could_be_changed(figure, s))
                    and not any(same_figure(s, f) for f in claimed)
                    for s in c.figures - c.against
                ):
                    otherwise.add(figure)
    return otherwise


def _measured_other(other: str, claimed: list[str]) -> bool:
    """Whether ``other`` is a measured figure (with a unit: 3.6x, 35%, 120ms), not a count that
    may count something else in the clause ("覆盖 9 个领域"), nor one of the claim's figures with
    its unit read otherwise (``$3.51\\%$`` read as 3.51 against 3.51%)."""
    theirs = figure_value(other)
    if theirs is None or theirs[1] == "":
        return False
    return not any((mine := figure_value(f)) is not None and mine[0] == theirs[0] for f in claimed)


def without(stated: Iterable[str], figures: set[str]) -> set[str]:
    """``stated`` less the figures it gives for another quantity than the claim's."""
    return {s for s in stated if not any(same_figure(f, s) for f in figures)}
