"""A check's result in brief, as an agent reads it, and the MCP answer that carries it.

The whole ``CheckResult`` (``kbsearch check --json``) holds every match of every
item with the features the decisions read: about 20 KB an item, so that a check
of 60 items no longer fits in the 1 MiB an SSE event of the official MCP client
may hold, and a day's check fills an agent's context with numbers it never reads.
The summary keeps what an agent acts on: each item's verdict and why, who had it
first, its best match, and the claims that are new. ``detail: "full"`` adds the
whole result beside it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from typing import Annotated, Literal

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from kbsearch.dedupe.results import CheckResult, ClaimStatus, ItemResult, Outcome, SkippedItem, Verdict

Detail = Literal["summary", "full"]
DetailField = Annotated[
    Detail,
    Field(
        description="summary (default): per item the verdict, reason, first seen, best match and the new claims; "
        "full: also the whole result (every match with its features, every claim), as `kbsearch check --json` "
        "prints it, under `full` (about 20 KB an item: check fewer items at a time)"
    ),
]
CLAIM_BYTES = 360
"""A new claim's text is cut after this many bytes of UTF-8, 120 Chinese characters or 360
English ones (``n`` names the claim in the full result): a key point is a sentence, and the
cut keeps the biggest check the limits allow (500 claims) at about 0.6 MiB, both copies."""


class BestMatch(BaseModel):
    """The first same-item match, else the record the reason names closest (the one the learned
    decision found likeliest to be the same item); none when a rule settled every match."""

    id: str
    same_item: bool
    probability: float
    """The same-item probability, as the reason says it: the learned one, or 1.0 for a rule's same item."""
    score: float | None
    """Cosine of the two whole records; null for a closest record the full result's matches
    (the first few) leave out, as the reason names it."""


class FirstSeen(BaseModel):
    id: str
    instance: str | None
    date: dt.date | None


class NewClaim(BaseModel):
    n: int
    """The claim's place (from 1) in the item's ``claims`` as the full result lists them."""
    text: str
    new_numbers: list[str] = Field(default_factory=list)
    moved_on: str | None = None


class ItemSummary(BaseModel):
    id: str
    title: str
    verdict: Verdict
    reason: str
    first_seen: FirstSeen | None = None
    best_match: BestMatch | None = None
    new_claims: list[NewClaim] = Field(default_factory=list)
    known_claims: int = 0
    flags: list[str] = Field(default_factory=list)
    resubmitted: bool = False
    own_earlier_version: bool = False
    edited: bool = False
    outcome: Outcome = "checked"
    """What this run did with the item: checked (no accept), stored, replaced, unchanged, refused or skipped."""


class CheckSummary(BaseModel):
    """What ``check`` and ``accept`` answer over MCP (and ``/api/check`` with ``"detail": "summary"``)."""

    input: str
    model: str
    as_of: dt.date | None
    detail: Detail
    verdicts: dict[str, int]
    """Items by verdict: NEW, UPDATE, DUPLICATE."""
    items: list[ItemSummary]
    flags: list[str] = Field(default_factory=list)
    accepted: list[str] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list)
    created_index: str | None = None
    accept_refused: str | None = None
    skipped: list[SkippedItem] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    full: CheckResult | None = None
    """With ``detail: "full"``: the whole result, as ``kbsearch check --json`` prints it."""


def summarize(result: CheckResult, detail: Detail = "summary") -> CheckSummary:
    counts = Counter(item.verdict.value for item in result.items)
    return CheckSummary(
        input=result.input,
        model=result.model,
        as_of=result.as_of,
        detail=detail,
        verdicts={verdict.value: counts[verdict.value] for verdict in Verdict},
        items=[summarize_item(item) for item in result.items],
        flags=[flag.message for flag in result.flags],
        accepted=result.accepted,
        unchanged=result.unchanged,
        created_index=result.created_index,
        accept_refused=result.accept_refused,
        skipped=result.skipped,
        warnings=result.warnings,
        notes=result.notes,
        full=result if detail == "full" else None,
    )


def summarize_item(item: ItemResult) -> ItemSummary:
    first = item.first_seen
    return ItemSummary(
        id=item.id,
        title=item.title,
        verdict=item.verdict,
        reason=item.reason,
        first_seen=FirstSeen(id=first.id, instance=first.instance, date=first.date) if first else None,
        best_match=_best(item),
        new_claims=[_claim(n, claim) for n, claim in enumerate(item.claims, 1) if not claim.known],
        known_claims=sum(claim.known for claim in item.claims),
        flags=[flag.message for flag in item.flags],
        resubmitted=item.resubmitted,
        own_earlier_version=item.own_earlier_version,
        edited=item.edited,
        outcome=item.outcome,
    )


CLOSEST = re.compile(r"; closest (.+), same item (\d+\.\d+)$")
"""How a NEW item's reason names the record closest to it (``verdict.decide``)."""


def _best(item: ItemResult) -> BestMatch | None:
    """The item's own first same-item match (matches list them first), else the record its reason
    names closest: one the learned decision read, which need not be among the matches shown
    (a rule overruling a high probability, a doc section's or another id's, never is)."""
    same = [match for match in item.matches if match.same_item]
    if same:
        return BestMatch.model_validate(same[0], from_attributes=True)
    named = CLOSEST.search(item.reason)
    if named is None:
        return None
    shown = next((match for match in item.matches if match.id == named[1]), None)
    if shown is not None:
        return BestMatch(id=shown.id, same_item=False, probability=shown.probability, score=shown.score)
    return BestMatch(id=named[1], same_item=False, probability=float(named[2]), score=None)


def _claim(n: int, claim: ClaimStatus) -> NewClaim:
    text, cut = claim.text, claim.text.encode()[: CLAIM_BYTES - len("…".encode())]
    if len(text.encode()) > CLAIM_BYTES:
        text = cut.decode(errors="ignore") + "…"
    return NewClaim(n=n, text=text, new_numbers=claim.new_numbers, moved_on=claim.moved_on)


def tool_answer(result: CheckResult, detail: Detail) -> CallToolResult:
    """The MCP answer: the summary (and with ``full`` the whole result) as structured
    content, and the summary alone, as compact JSON, as its text: the spec's serialized
    JSON for clients that read only text, without sending the whole result twice."""
    summary = summarize(result, detail)
    text = summary.model_dump_json(exclude={"full"})
    structured = summary.model_dump(mode="json", exclude=None if summary.full else {"full"})
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)
