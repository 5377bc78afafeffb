"""A score written as a decimal and the same score written as a percentage are one figure when
two texts are compared: one writer gives "scores 0.768 … above the 0.74 baseline", "AUROC 0.947",
"positive predictive value 0.47", another "总分 76.8% … 医生基线（74%）", "AUROC 94.7%", "阳性预测值 47%".

``shares`` reads a decimal as its percentage where its own text names a share ("accuracy 0.94",
"成功率 0.73"). Most scores are named otherwise (a score, AUROC, F1, a predictive value, 总分) or
not at all ("the 0.74 baseline"), and keep their digits there: ``numbers`` gives each text one
spelling of a figure and cannot tell such a decimal from a loss or a correlation. Compared with
another writer's figure, it can: ``quantities.unstated`` reads a claim's percentage as its hundredth
against a record's bare decimal, and a claim's bare decimal as its value × 100 against a record's
percentage, so neither writer's spelling is a figure the other lacks (probe 50 had "0.768" and
"0.74" new against "76.8%" and "74%", and "47%" known only as detail beside "0.47").

Only a bare decimal strictly between 0 and 1 written with two significant digits or more. One digit
(0.5, 0.1, 0.05) is too often a threshold, a dropout rate or a p-value, which a 50% or 10% of
something else in the other text would meet by chance. A decimal with a unit is none:
``numbers`` reads 0.5B parameters as ``500m`` and 0.47 s as ``470ms``, and never reads a version
(v0.94, vLLM 0.94, 0.94 版) as a figure. Nor is a claim's decimal that its text gives for what no
percentage measures (``shares.no_score``: a loss, a p-value, an exponent, a price, a change of a
figure): "the eval loss falls to 0.58" states no record's 58% success rate (``score_decimals``).
A record's decimal is not read for what it measures: a claim's 58% meets a record's bare 0.58
whatever it is, when the record gives no figure near 58%.
"""

from __future__ import annotations

import re
from decimal import Decimal

from kbsearch.text.shares import no_score

_DECIMAL = re.compile(r"0\.\d+")
_PERCENTAGE = re.compile(r"\d{1,2}(?:\.\d+)?%")
_MIN_DIGITS = 2
_HUNDRED = Decimal(100)


def other_scale(number: str) -> str | None:
    """``number`` (in ``numbers``' spelling) on the other of the two scales: ``0.768`` is ``76.8%``
    and ``94%`` is ``0.94``; None for any other figure, and for a decimal of one significant digit
    (``0.5``, ``50%``: see the module)."""
    if _DECIMAL.fullmatch(number):
        fraction = Decimal(number)
        percentage = format((fraction * _HUNDRED).normalize(), "f")
        return f"{percentage}%" if fraction and _significant(number) >= _MIN_DIGITS else None
    if _PERCENTAGE.fullmatch(number):
        fraction_text = format((Decimal(number[:-1]) / _HUNDRED).normalize(), "f")
        return fraction_text if Decimal(fraction_text) and _significant(fraction_text) >= _MIN_DIGITS else None
    return None


def _significant(decimal: str) -> int:
    return len(decimal.replace(".", "").lstrip("0"))


_BARE_DECIMAL = re.compile(r"(?<![A-Za-z0-9_.@#§-])0\.\d+(?![A-Za-z0-9_.%]|\s*[%×倍])")


def score_decimals(text: str) -> set[str]:
    """The bare decimals below 1 of ``text`` (in ``numbers``' spelling: ``0.50`` is ``0.5``) that
    may be another writer's percentage: all but those given for what no percentage measures
    (``shares.no_score``)."""
    return {
        format(Decimal(m.group()).normalize(), "f")
        for m in _BARE_DECIMAL.finditer(text)
        if not no_score(text, m.start(), m.end())
    }
