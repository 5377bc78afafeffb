"""What a check result's matches and claims are, in words a new user reads first.

Derived only from what check decided (never deciding again): a match's ``relation`` to the item
and the claims a record states; a claim's ``decision`` sentence and ``overridden_by``. Probes 43
and 44's testers read a living-doc section's ``probability 1.0`` beside ``same_item: false`` as a
certain match rejected, and a claim "known" at 0.19 beside one "new" at 0.91 as one scale: the
threshold and the decision were there, after the features and the evidence, where no one read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbsearch.dedupe.claim_decision import ClaimDecision, compared
from kbsearch.records import Kind
from kbsearch.text.written_figures import as_written

if TYPE_CHECKING:
    from kbsearch.dedupe.results import ClaimStatus, ItemResult, Match

SAME, EVIDENCE, OTHER = "same item", "evidence", "another item"
NUMBERS, STAGE, ANOTHER_ITEM = "new numbers", "stage", "another item"


def worded(item: ItemResult) -> None:
    """Fill in the words of ``item``'s matches and claims (in place: they are the item's own)."""
    for claim in item.claims:
        claim.overridden_by = overridden_by(claim)
        claim.decision = decision(claim)
    for match in [*item.matches, *(m for m in (item.first_seen, item.held_in_doc) if m is not None)]:
        match.relation = relation(match)
        match.states_claims = states_claims(match.id, item.claims)


def match_worded(match: Match, claims: list[ClaimStatus]) -> Match:
    """``match`` in the words check's item gives its own (explain builds its match apart)."""
    return match.model_copy(update={"relation": relation(match), "states_claims": states_claims(match.id, claims)})


def relation(match: Match) -> str:
    """``same item``; ``evidence`` (a living-doc section that is not the item: it covers its field,
    and what it states makes a claim known); ``another item``."""
    if match.same_item:
        return SAME
    return EVIDENCE if match.kind is Kind.doc_section else OTHER


def states(claim: ClaimStatus) -> bool:
    """Its passage says the claim: known by it, or said but for a new figure (``verdict.doc_stated``)."""
    return claim.known or (claim.score >= claim.threshold and bool(claim.new_numbers) and not claim.moved_on)


def states_claims(record_id: str, claims: list[ClaimStatus]) -> list[int]:
    """The claims (numbered from 1, as ``explain --claim N``) whose passage shown is ``record_id``'s and says them."""
    return [n for n, claim in enumerate(claims, start=1) if claim.best_id == record_id and states(claim)]


def overridden_by(claim: ClaimStatus) -> str | None:
    """What made a claim new although its passage's score clears the threshold: ``new numbers``,
    ``stage`` (a later stage or the opposite) or ``another item`` (that passage's record is not the item)."""
    if claim.known or claim.score < claim.threshold or claim.best_id is None:
        return None
    if claim.new_numbers:
        return NUMBERS
    return STAGE if claim.moved_on else ANOTHER_ITEM


def decision(claim: ClaimStatus) -> str:
    """One sentence: known or new, by which decision at which threshold; an override first."""
    by = claim.decided_by.value if claim.decided_by not in (None, ClaimDecision.restated) else "the score"
    sign = "≥" if claim.score >= claim.threshold else "<"
    figures = f"{by}: {compared(claim.score, sign, claim.threshold)}, its threshold"
    who = claim.best_id or ""
    if claim.restated:
        return (
            f"known: restated, {who} is a card of the same paper (a claim is known unless it brings a new "
            f"number; its score, {compared(claim.score, sign, claim.threshold)}, does not decide)"
        )
    if claim.known:
        if claim.decided_by is ClaimDecision.background:  # the claim form's score, another record's passage
            recalled = f"claim_said: {compared(claim.score, sign, claim.threshold)}, its threshold"
            return f"known as background recalled from {who}: it says the same, by {recalled}"
        if sign == "<":
            return f"known by the cosine decision on {who}'s passage; {figures} alone would not say it"
        return f"known: {who} says the same, by {figures}"
    override = overridden_by(claim)
    if override == NUMBERS:
        written = ", ".join(as_written(claim.text, claim.new_numbers))
        return f"new: new numbers ({written}) override the score; {who} says the rest, by {figures}"
    if override == STAGE:
        return f"new: the stage overrides the score ({claim.moved_on}); {who} says the rest, by {figures}"
    if override == ANOTHER_ITEM:
        return f"new: another item overrides the score, {who} says it but is not the same item, by {figures}"
    if not who:
        return "new: no passage of a known record was near enough to weigh"
    return f"new: the nearest passage, {who}'s, by {figures}"


def tag(claim: ClaimStatus) -> str:
    """What a NEW claim's line says first when an override, not its score, decided it ("" otherwise)."""
    return {
        NUMBERS: "[new numbers override the score] ",
        STAGE: "[the stage overrides the score] ",
        ANOTHER_ITEM: "[said by another item: the score does not count] ",
    }.get(overridden_by(claim) or "", "")
