"""A figure stated of something else: the same value, given only beside other qualifiers.

A claim names what its figure is about (an accelerator: H200; a kind of price: reserved).
A record's sentence giving the same figure beside other qualifiers of that sort, and none
of the claim's, measured or priced something else. A sentence naming no qualifier of the
sort says nothing of which (the claim may add the detail), so it still states the figure.
``hardware.on_other_hardware`` and ``price_kinds.priced_otherwise`` read it this way.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from kbsearch.text.quantities import same_figure
from kbsearch.text.textsim import numbers, sentences, substantive_numbers

Qualifiers = Callable[[str], frozenset[str]]


@lru_cache(maxsize=8192)  # a record's sentences are read against each claim naming a qualifier
def _sentence_facts(text: str, qualifiers: Qualifiers) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """(figures, qualifiers) of each sentence of ``text`` that gives a figure."""
    return tuple((frozenset(f), qualifiers(s)) for s in sentences(text, min_chars=1) if (f := numbers(s)))


def given_otherwise(claim: str, texts: list[str], qualifiers: Qualifiers) -> set[str]:
    """The claim's figures that ``texts`` (records' texts) give only beside other qualifiers
    than the claim names; none when the claim names no qualifier."""
    mine = qualifiers(claim)
    if not mine:  # most claims
        return set()
    facts = [fact for text in texts for fact in _sentence_facts(text, qualifiers)]
    elsewhere = set()
    for figure in substantive_numbers(claim):
        giving = [named for figures, named in facts if any(same_figure(figure, f) for f in figures)]
        if giving and all(named and not named & mine for named in giving):
            elsewhere.add(figure)
    return elsewhere
