"""A match line's first column: the learned probability when the learned decision
settled the match, else "rule". A doc section that a rule calls another item read
"1.00" beside "not the same item", and a shared arXiv id "≡ 0.36"."""

from __future__ import annotations

from kbsearch.dedupe.results import ItemResult, Match, Rule, Verdict
from kbsearch.records import Kind
from kbsearch.render import item_text


def match(rule: Rule, same: bool, probability: float) -> Match:
    return Match(
        id=f"m-{rule.value}",
        kind=Kind.doc_section if rule is Rule.doc_section else Kind.increment,
        title="t",
        instance=None,
        date=None,
        score=0.5,
        lexical=0.0,
        probability=probability,
        threshold=0.45,
        same_item=same,
        rule=rule,
        reasons=["why"],
    )


def test_a_rule_settled_match_shows_the_rule_and_a_learned_one_its_probability() -> None:
    matches = [match(Rule.shared_id, True, 0.36), match(Rule.doc_section, False, 1.0), match(Rule.learned, True, 0.93)]
    item = ItemResult(
        id="x", title="x", kind=Kind.increment, instance=None, date=None,
        verdict=Verdict.UPDATE, reason="r", matches=matches,
    )  # fmt: skip
    text = item_text(item)
    line = {m.id: next(x for x in text.splitlines() if m.id in x) for m in matches}
    assert "≡ rule" in line["m-shared_id"] and "0.36" not in line["m-shared_id"]
    assert " rule" in line["m-doc_section"] and "1.00" not in line["m-doc_section"]
    assert "≡ 0.93" in line["m-learned"]
