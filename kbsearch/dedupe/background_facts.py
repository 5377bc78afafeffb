"""A key point recalling another item as background is known when a stored record says that fact.

A writer recalls an item the team holds as context inside a new one ("背景：X 红队报告给出的越狱
成功率为 12%", ``background``). The same-item features leave such a point out; its claim was
judged as any other, and another item's increment or card never makes a claim known
(``claims.other_item_says``: every claim the form called known from another paper alone was a
new fact of its own). So a background point came out NEW whenever the record it recalls is
another item, which it is by definition: the accepting user saw the recalled fact listed as
one of the item's new claims.

Here a background point that no decision called known is read once more against its nearest
passages of any record, each as another record's (``same_item`` 0, the form's fitted
threshold), and is known when the passage the form weighs says it: of an increment or a card
too, not only of a living-doc section. Every safeguard of another record's passage stays: a
figure that record does not state, or states otherwise (the point recalls 12%, the report
says 15%), a later stage, a denial (``finer.denies``), and, read after it, a date or an
advisory's version no record read gives (``claim_dates``, ``claim_versions``) keep it new.

The nearest passages are read without ``rules.ruled_out``: exact evidence that a record is
another item (the item only cites its paper, or names another system) is what a background
point says of the record it recalls. A record whose key points are all background keeps them
as its own (``background.background_points``), and they are judged as any other claim.
"""

from __future__ import annotations

import numpy as np

from kbsearch.dedupe.another_record import said_as_another
from kbsearch.dedupe.background import recalled_fact
from kbsearch.dedupe.claim_decision import ClaimDecision
from kbsearch.dedupe.claims import PassageHit
from kbsearch.dedupe.finer import Finer
from kbsearch.dedupe.results import ClaimStatus
from kbsearch.records import Record
from kbsearch.text.quantities import figure_readings, unstated
from kbsearch.text.textsim import substantive_numbers

RECALLED_HITS = 3
"""The nearest passages read for a background point: the ones the claim's search ranked first."""


def recalled_said(
    claim: str, vector: np.ndarray, background: frozenset[str], shown: ClaimStatus, hits: list[PassageHit], finer: Finer
) -> tuple[ClaimStatus, list[Record]]:
    """``shown``, or, when the claim is one of the item's ``background`` points and is not known,
    known from the one of its nearest passages (``hits``, nearest first, any record) that the form
    says it of as another record's passage; with the records read, for the date and version checks.
    A point that passage says but for a figure or a stage stays new, shown by it when ``shown``
    names no passage that clears its threshold: the user compares the figure the team holds.
    The point is read for the fact it recalls, without its label (``background.recalled_fact``):
    read with "Background:", it was nearer another record's labelled point than the recalled
    record's sentence in the other language (probe 50). Its status shows the point as written."""
    if shown.known or claim not in background:
        return shown, []
    fact = recalled_fact(claim)
    read = said_as_another(fact, vector, hits[:RECALLED_HITS], finer)
    if read is None or read.status.score < read.status.threshold:
        return shown, []
    said = read.status.model_copy(update={"text": claim})
    if not (said.known or said.said_by_another_item):  # said but for a figure or a stage: new
        return (shown if _says(shown) else said), []  # the recalled record's figure beside the point's
    detail = unstated(substantive_numbers(fact), read.stated_numbers(), figure_readings(fact))
    recalled = said.model_copy(
        update={
            "known": True,
            "decided_by": ClaimDecision.background,
            "extra_numbers": sorted(detail),  # detail beside the figures it states, not a changed one
            "cosine_known": shown.cosine_known,
        }
    )
    return recalled, read.records()


def _says(status: ClaimStatus) -> bool:
    """Whether the status names a passage that clears its decision's threshold."""
    return status.best_id is not None and status.score >= status.threshold
