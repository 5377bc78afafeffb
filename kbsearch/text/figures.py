"""Figures in one spelling, for the lexical index and its queries.

Writers spell one figure several ways: ``10.7x``, ``10.7×`` and ``10.7 倍``;
``63k``, ``63,000`` and ``6.3万``; ``1,618`` and ``1618``. The gate reads them
as one (``textsim.numbers``); the lexical index matches text as written, so
``10.7x`` found no record that wrote ``10.7×``. Both sides now meet in the
gate's spelling: a query's figures are rewritten into it (``in_one_spelling``),
and each part of a record is indexed with the spellings of its figures that
it does not already hold (``figures_to_index``), after its text as written.

Only a figure written with a unit, a magnitude or a thousands' comma is
respelled: bare digits (``3000``, ``2607.08057``, ``Llama-3.1``) are matched as
typed, as before. What ``figures_to_index`` adds is stored in the lexical
index: a change to it needs a migration that rewrites the stored rows, as
``store/migrations.py``'s migration 6 (which added them) does, from a frozen copy.
"""

from __future__ import annotations

from kbsearch.text.folding import fold
from kbsearch.text.textsim import written_numbers


def figure_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, spelling) of each figure of ``text`` written otherwise than in the one spelling."""
    return [
        (start, end, spelling)
        for start, end, spelling, respelled in written_numbers(text)
        if respelled and fold(text[start:end]) != spelling
    ]


def in_one_spelling(query: str) -> str:
    """``query`` with each figure in the one spelling: ``TensorRT-LLM 10.7 倍`` → ``TensorRT-LLM 10.7x``."""
    out: list[str] = []
    cursor = 0
    for start, end, spelling in figure_spans(query):
        out += [query[cursor:start], f" {spelling} "]
        cursor = end
    return "".join([*out, query[cursor:]]) if out else query


def figures_to_index(folded: str) -> list[str]:
    """The one spelling of each figure of ``folded`` (a record's text as the
    index holds it) that the text does not hold already, in order."""
    return list(dict.fromkeys(s for _, _, s in figure_spans(folded) if s not in folded))


def with_figures(folded: str) -> str:
    """``folded`` as the lexical index holds it: then, on a line of their own, ``figures_to_index``."""
    extra = figures_to_index(folded)
    return f"{folded}\n{' '.join(extra)}" if extra else folded
