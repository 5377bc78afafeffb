"""What a new user reads first in check's output (probes 43 and 44's testers): a living-doc
section's relation to the item and the claims it states, each claim's decision with its
threshold and any override first, which claims the living doc states, and an UPDATE none
of whose claims is known resting on the item decision alone. Wording only: no verdict moves."""

from __future__ import annotations

import datetime as dt

from kbsearch.dedupe.claim_decision import ClaimDecision
from kbsearch.dedupe.results import ClaimStatus, ItemResult, Match, Rule, Verdict
from kbsearch.dedupe.verdict import decide
from kbsearch.records import Kind
from kbsearch.render import item_text

SECTION = Match(
    id="doc/ops#§4.2", kind=Kind.doc_section, title="§4.2 Checkpointing", instance=None, date=dt.date(2026, 3, 1),
    score=0.4, lexical=0.0, probability=0.9991, threshold=0.55, same_item=False, rule=Rule.doc_section,
    reasons=["a living-doc section covers a field: evidence for the claims it states, not the same item"],
)  # fmt: skip
EARLIER = Match(
    id="amy/2026-03-02#1", kind=Kind.increment, title="Tallow shards checkpoints", instance="amy",
    date=dt.date(2026, 3, 2), score=0.7, lexical=0.1, probability=0.97, threshold=0.55, same_item=True,
    rule=Rule.learned, reasons=["same item 0.97 ≥ 0.55 (key points form)"],
)  # fmt: skip


def _claim(text: str, known: bool, score: float, best: str, **more: object) -> ClaimStatus:
    kind = Kind.doc_section if best.startswith("doc/") else Kind.increment
    fields = {"text": text, "known": known, "score": score, "threshold": 0.08, "best_id": best, "best_kind": kind}
    return ClaimStatus.model_validate({**fields, "decided_by": ClaimDecision.claim_said, **more})


WEAK_KNOWN = _claim("checkpoints are written every 500 steps", True, 0.19, EARLIER.id)
NEW_FIGURE = _claim("restoring takes 41 seconds", False, 0.91, EARLIER.id, new_numbers=["41"])
FROM_DOC = _claim("shards are written in parallel per rank", True, 0.6, SECTION.id)


def _item(claims: list[ClaimStatus], matches: list[Match]) -> ItemResult:
    verdict, reason = decide(matches, claims)
    return ItemResult(
        id="kai/2026-03-03#2", title="Tallow restores faster", kind=Kind.increment, instance="kai",
        date=dt.date(2026, 3, 3), verdict=verdict, reason=reason, matches=matches, claims=claims,
    )  # fmt: skip


def test_a_doc_section_match_says_it_is_evidence_and_which_claims_it_states() -> None:
    item = _item([WEAK_KNOWN, NEW_FIGURE, FROM_DOC], [EARLIER, SECTION])
    dumped = item.model_dump(mode="json")["matches"]
    assert [(m["relation"], m["states_claims"]) for m in dumped] == [
        ("same item", [1, 2]),
        ("evidence", [3]),
    ]  # 2: but for a figure
    keys = list(dumped[1])
    assert keys.index("relation") < keys.index("probability")  # read before the overruled 1.00
    assert dumped[1]["probability"] == 0.9991 and dumped[1]["same_item"] is False  # old keys kept, unchanged
    assert "(states claim 3 of the item)" in item_text(item)


def test_each_claim_says_which_decision_decided_it_and_an_override_first() -> None:
    item = _item([WEAK_KNOWN, NEW_FIGURE], [EARLIER])
    weak, figure = item.model_dump(mode="json")["claims"]
    assert weak["decision"] == f"known: {EARLIER.id} says the same, by claim_said: 0.19 ≥ 0.08, its threshold"
    assert figure["overridden_by"] == "new numbers" and weak["overridden_by"] is None
    assert figure["decision"].startswith("new: new numbers (41) override the score;")
    assert list(figure)[:4] == ["text", "known", "decision", "overridden_by"]  # before the features and evidence
    [line] = [line for line in item_text(item).splitlines() if "restoring" in line]
    assert line.lstrip().startswith("NEW   [new numbers override the score] restoring takes 41 seconds")
    assert "--claim N" in item_text(item)  # the claims' header leads to explain's rule-by-rule account


def test_a_new_items_reason_lists_which_claims_the_living_doc_states() -> None:
    other = _claim("a new restore path skips the metadata scan", False, 0.01, "amy/2026-03-02#4")
    figure = _claim("shards go to 8 buckets", False, 0.7, SECTION.id, new_numbers=["8"])
    item = _item([other, FROM_DOC, figure], [SECTION])
    assert item.verdict is Verdict.NEW
    assert "the living doc states claim 2 of 3 (doc/ops#§4.2), and claim 3 of 3 but for new numbers" in item.reason


def test_an_update_none_of_whose_claims_is_known_says_it_rests_on_the_item_decision() -> None:
    fresh = _claim("the restore path is rewritten in Rust", False, 0.02, EARLIER.id)
    item = _item([NEW_FIGURE, fresh], [EARLIER])
    assert item.verdict is Verdict.UPDATE  # unchanged: wording only
    assert item.reason.startswith(
        f"same item as {EARLIER.id} by the learned decision: same item 0.97 ≥ 0.55 (key points form); "
        "no claim of it is known: both are new (new numbers: 41)"
    )
    partly = _item([NEW_FIGURE, WEAK_KNOWN], [EARLIER])
    assert partly.reason == f"same item as {EARLIER.id}, 1 of 2 claims new (new numbers: 41)"  # as before
