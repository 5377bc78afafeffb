"""The summary's ``best_match`` agrees with the item's reason (a new user's probe): a NEW
item whose reason named ``closest tom/…#1, same item 0.00`` had as best match a living-doc
section with ``same_item: false, probability: 1.0``, a probability its rule overruled, which
the reason keeps out, because the closest record was not among the matches shown."""

from __future__ import annotations

from kbsearch.dedupe.results import ItemResult, Match, Rule, Verdict
from kbsearch.records import Kind
from kbsearch.serve.summary import summarize_item

DOC = ("doc/agent-infra#§1.2", Rule.doc_section, 1.0, 0.63)
CARD = ("card/2001", Rule.different_names, 0.9998, 0.61)
LEARNED = ("card/2010", Rule.learned, 0.02, 0.27)
NEW = "no known record describes the same item"


def item(reason: str, *matches: tuple[str, Rule, float, float], verdict: Verdict = Verdict.NEW) -> ItemResult:
    return ItemResult(
        id="stdin#1",
        title="a bare item",
        kind=Kind.increment,
        instance=None,
        date=None,
        verdict=verdict,
        reason=reason,
        matches=[
            Match(
                id=id_,
                kind=Kind.paper_card,
                title=id_,
                instance=None,
                date=None,
                score=score,
                lexical=0.0,
                probability=probability,
                threshold=0.5,
                same_item=rule is Rule.shared_id,
                rule=rule,
            )
            for id_, rule, probability, score in matches
        ],
    )


def test_a_closest_record_the_matches_shown_leave_out_is_the_best_match_as_the_reason_says() -> None:
    best = summarize_item(item(f"{NEW}; closest tom/2026-10-06-tom-agents-e1prep#1, same item 0.00", DOC, CARD))
    assert best.best_match is not None
    assert best.best_match.model_dump() == {
        "id": "tom/2026-10-06-tom-agents-e1prep#1",
        "same_item": False,
        "probability": 0.0,
        "score": None,
    }


def test_a_closest_record_shown_is_the_best_match_with_its_score() -> None:
    best = summarize_item(item(f"{NEW}; closest card/2010, same item 0.02", DOC, CARD, LEARNED)).best_match
    assert best is not None and (best.id, best.probability, best.score) == ("card/2010", 0.02, 0.27)


def test_no_best_match_when_rules_settled_every_match_and_the_reason_names_none() -> None:
    assert summarize_item(item(NEW, DOC, CARD)).best_match is None


def test_a_same_item_match_is_the_best_match() -> None:
    same = ("card/2017", Rule.shared_id, 1.0, 0.7)
    best = summarize_item(item("same item as card/2017", DOC, same, verdict=Verdict.UPDATE)).best_match
    assert best is not None and (best.id, best.same_item) == ("card/2017", True)
