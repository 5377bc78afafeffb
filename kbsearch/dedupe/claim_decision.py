"""Which decision called a claim known or new, so its line can say whose score it shows.

Each decision has its own fitted threshold: ``claim_said``'s is low (0.08), since within one
item most claims are known, and the cosine decision's is 0.50. A bare "0.27 ≥ 0.08" beside a
"0.56 ≥ 0.50" read to new users as a weak probability and a moving threshold: the line names it.
"""

from __future__ import annotations

from enum import StrEnum


class ClaimDecision(StrEnum):
    """The decision whose score and threshold a claim shows, by its config key."""

    claim_said = "claim_said"
    """The claim form: coverage, names, numbers and both cosines of the passage (``claims.judge_said``)."""
    judge_claim_known = "judge_claim_known"
    """The cosine decision on the judge's vectors of a same-item record's passages (``claims.judge_claim``)."""
    claim_known = "claim_known"
    """The cosine decision on the index model's vectors (``claims.judge_claim``)."""
    restated = "restated"
    """Known below the threshold: another card of a paper that has one (``ClaimStatus.restated``)."""
    background = "background"
    """A key point recalling another item as background, known because the claim form says another
    record's passage states it, an increment's or a card's too (``background_facts``): its score
    and threshold are the claim form's."""


LABELS = {
    ClaimDecision.claim_said: "claim form",
    ClaimDecision.judge_claim_known: "judge's cosine form",
    ClaimDecision.claim_known: "cosine form",
    ClaimDecision.background: "claim form",
}
"""What a claim line calls the decision before its score ("says the same (claim form 0.27 ≥ 0.08)")."""


def scored(decision: ClaimDecision | None, score: float, sign: str, threshold: float) -> str:
    """``score sign threshold``, in brackets after the deciding form's name; bare without one (an older result)."""
    label = LABELS.get(decision) if decision is not None else None
    figures = compared(score, sign, threshold)
    return f"({label} {figures})" if label else figures


def compared(score: float, sign: str, threshold: float) -> str:
    """``score sign threshold`` with the fewest digits, two or more, at which the rounded
    figures compare as the figures do ("0.08 < 0.08" read false of 0.0759 and 0.08)."""
    for digits in range(2, 7):
        if (round(score, digits) < round(threshold, digits)) == (score < threshold):
            return f"{score:.{digits}f} {sign} {threshold:.{digits}f}"
    return f"{score} {sign} {threshold}"
