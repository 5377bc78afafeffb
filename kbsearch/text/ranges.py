"""Whether the second end of a range lends its magnitude to the first.

A range written with one suffix shares it: "3 to 5B" is 3B to 5B, "2-4k" 2k to 4k, "从 3
到 5 万" 3万 to 5万, "1.5 to 2T" 1.5T to 2T; so ``textsim.numbers`` carries the second's
suffix back onto a bare first number. A pair whose first number is already the larger
figure is not such a range: "grows from 600 to 8k tokens" goes from 600 to 8,000, and
carrying the k back made it say 600k, a figure the record never gives (probe 38 read a
repeat's "600" as new news against its first report's "600 → 8k"). A descent told in one
suffix stays within one order of magnitude ("cut from 10 to 6 billion", "1.8 to 1.2
billion"); a first number ten times the second or more is a bare count (600 to 8k, 40 to
2k, 从 600 到 8 万), read as written. Units that are no magnitude (%, x, ms, hours) are
carried back whatever the figures (26-30%, 3 to 5x): the rule weighs only k, M, B, T,
千, 万, 亿 and their words.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

# A suffix shared by a descending pair keeps it within one order of magnitude.
_SHARED_DESCENT = Decimal(10)


def shares_magnitude(first: str, second: str) -> bool:
    """Whether a bare ``first`` number before ``second`` written with a magnitude (the digits
    of each, commas allowed) is scaled as ``second`` is: ``3``, ``5`` (3 to 5B) yes; ``600``,
    ``8`` (600 to 8k) no."""
    try:
        low, high = Decimal(first.replace(",", "")), Decimal(second.replace(",", ""))
    except InvalidOperation:
        return True
    return low < high * _SHARED_DESCENT
