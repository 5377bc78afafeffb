"""``kbsearch explain A B --claim N``: why check calls claim N of A known or new.

Only the result types: ``claim_reasons`` builds them from what ``check`` computed.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ClaimStep(BaseModel):
    """What one claim rule said of the claim, in the order ``check`` reads them."""

    rule: str
    """``same-item records``, ``claim_said``, ``cosine``, ``restated``, ``coined names``,
    ``numbers``, ``stage``, ``another item`` or ``background``."""
    says: bool | None
    """True: known; False: new; None: no say on this claim."""
    detail: str
    """The evidence the rule read: the passage, its score against the threshold, the names or numbers."""


class ClaimExplanation(BaseModel):
    """Claim ``n`` of A (from 1, as ``n`` in check's ``new_claims``), as a check of A coming in again
    decides it: A's own stored record and what is dated after A are hidden, as ``check`` hides them."""

    n: int
    claims: int
    """How many claims A has (its key points, else its whole text)."""
    text: str
    known: bool
    """Check's decision of the claim (``status.known``)."""
    decided_by: str
    """The rule (a ``steps`` entry's ``rule``) whose say settled it."""
    same_item: list[str] = Field(default_factory=list)
    """The records check judged A the same item as: only their passages make a claim known."""
    b_same_item: bool = False
    """Whether B is one of them."""
    steps: list[ClaimStep]
    status: dict[str, Any]
    """The claim exactly as ``check --json`` prints it (``items[].claims[n-1]``)."""
    notes: list[str] = Field(default_factory=list)
