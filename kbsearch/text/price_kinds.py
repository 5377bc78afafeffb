"""Which kind of price a figure is: a cloud's reserved $2.69 per GPU-hour is not another
record's on-demand $2.69, though the figure is the same (probe 29, V4-1).

A claim naming a kind of price (on-demand, reserved, spot) has a figure stated elsewhere
when every sentence of a record that gives the figure names a kind too, and none of the
claim's: the record priced something else. A sentence naming no kind says nothing of
which (the claim may add the detail): ``qualified_figures``, as ``hardware`` reads accelerators.
"""

from __future__ import annotations

import re

from kbsearch.text.qualified_figures import given_otherwise

_KINDS = {
    "on-demand": re.compile(r"(?<![a-z])on[- ]demand(?![a-z])|按需", re.IGNORECASE),
    "reserved": re.compile(r"(?<![a-z])(?:reserved|committed)(?![a-z])|预留|包年", re.IGNORECASE),
    "spot": re.compile(r"(?<![a-z])(?:spot|preemptible)(?![a-z])|现货|竞价", re.IGNORECASE),
}


def price_kinds(text: str) -> frozenset[str]:
    """The kinds of price ``text`` names (``on-demand``, ``reserved``, ``spot``)."""
    return frozenset(kind for kind, pattern in _KINDS.items() if pattern.search(text))


def priced_otherwise(claim: str, texts: list[str]) -> set[str]:
    """The claim's figures that ``texts`` (records' texts) give only for other kinds of price
    than the claim names (see the module); none when the claim names no kind."""
    return given_otherwise(claim, texts, price_kinds)
