"""A key point recalling another item as background ("背景：…") is known when a stored record says
that fact, another item's increment too (``dedupe.background_facts``, issue 25): it recalls what
the team holds. Its figure must be the stored one, and a point that is no background point is
known from another item's increment no more than before (``claims.other_item_says``).

The form is set by hand: another record's passage says a claim at lexical overlap 0.65."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from support.checking import check_one
from test_claim_said import form
from test_doc_section_verdicts import always_said

from kbsearch.dedupe.claim_decision import ClaimDecision
from kbsearch.dedupe.claim_reasons import explain_claim
from kbsearch.dedupe.results import ItemResult, Verdict
from kbsearch.records import Kind, Record

FORM = form({"lexical": 20.0, "same_item": 9.5, "bias": -13.0})
RATE = "Pellam-3 红队评估给出的越狱成功率为 12%"
REPORT = Record(
    id="ann/09-14#2", kind=Kind.increment, instance="ann", date=dt.date(2026, 9, 14),
    title="Pellam-3 红队评估报告", text="", claims=[RATE, "评估由 40 名外部测试者在两周内完成"],
)  # fmt: skip
PAYOUT = "单个通用越狱最高奖励 5 万美元"
# The title names Wrenfield, which the report never mentions: the named-systems rule sets the
# report apart from the bounty, and reads none of the bounty's own claims from it.
WRENFIELD = "Wrenfield 启动通用越狱漏洞赏金计划"


def bounty(*points: str, title: str = WRENFIELD) -> Record:
    return Record(
        id="bo/09-20#1", kind=Kind.increment, instance="bo", date=dt.date(2026, 9, 20),
        title=title, text="", claims=[PAYOUT, *points],
    )  # fmt: skip


CONFIG = always_said().model_copy(update={"claim_said": FORM})


def check(tmp_path: Path, item: Record) -> ItemResult:
    return check_one(tmp_path, [REPORT], item, CONFIG)


def test_a_background_point_another_items_increment_states_is_known(tmp_path: Path) -> None:
    """NEW either way: no record is the same item (the report is another item, and a claim known
    from another item's increment is no evidence that the item is it: only living-doc sections
    stating every claim make an item with no same-item record a DUPLICATE)."""
    record = bounty(f"背景：{RATE}")
    item = check(tmp_path, record)
    payout, recalled = item.claims
    assert not any(m.same_item for m in item.matches), item.matches
    assert item.verdict is Verdict.NEW and item.reason.startswith("no known record describes the same item")
    assert not payout.known
    assert recalled.known and recalled.best_id == REPORT.id and recalled.decided_by is ClaimDecision.background
    assert recalled.features["same_item"] == 0.0  # read as another record's passage
    assert recalled.decision.startswith(f"known as background recalled from {REPORT.id}: it says the same")
    assert "recalls as background" in recalled.how_said
    assert explain_claim(item, 2, record, [], REPORT.id, CONFIG).decided_by == "background"  # explain --claim 2


def test_a_background_point_giving_another_figure_than_the_stored_one_is_new(tmp_path: Path) -> None:
    """Said by the report's passage but for the figure: shown by it, the stored 12% beside the point's 15%."""
    item = check(tmp_path, bounty("背景：Pellam-3 红队评估给出的越狱成功率为 15%"))
    _, recalled = item.claims
    assert not recalled.known and recalled.new_numbers == ["15%"], recalled.decision
    assert recalled.best_id == REPORT.id and recalled.overridden_by == "new numbers"
    assert recalled.best_text == RATE


def test_a_background_point_no_record_states_is_new(tmp_path: Path) -> None:
    """No figure to keep it new: only the form's reading of the nearest passages (the report's) does."""
    funding = "背景：Wrenfield 此前已与三家云厂商签署算力合作协议"
    item = check(tmp_path, bounty(funding, f"背景：{RATE}"))
    payout, raised, recalled = item.claims
    assert recalled.known and recalled.best_id == REPORT.id  # the same check hears a stored fact
    assert not raised.known and raised.decided_by is not ClaimDecision.background, raised.decision
    assert not payout.known and item.verdict is Verdict.NEW


def test_a_point_that_is_no_background_is_not_known_from_another_items_increment(tmp_path: Path) -> None:
    """The same sentence with and without its label, in a bounty whose title names no system: the
    report's passage is weighed and says it (the form clears), yet without the label it stays new."""
    labelled = check(tmp_path / "a", bounty(f"背景：{RATE}", title="通用越狱漏洞赏金计划启动")).claims[1]
    plain = check(tmp_path / "b", bounty(RATE, title="通用越狱漏洞赏金计划启动")).claims[1]
    assert labelled.known and labelled.best_id == REPORT.id
    assert not plain.known and plain.best_id == REPORT.id and plain.overridden_by == "another item", plain.decision


def test_a_repeat_whose_only_unknown_point_is_a_recalled_fact_is_a_duplicate(tmp_path: Path) -> None:
    """Its own point is the earlier record's, the other recalls the report's: nothing in it is new."""
    earlier = Record(
        id="cy/09-18#1", kind=Kind.increment, instance="cy", date=dt.date(2026, 9, 18),
        title="Wrenfield 赏金计划", text="", claims=[PAYOUT], arxiv_ids=["2609.01234"],
    )  # fmt: skip
    item = bounty(f"背景：{RATE}", title="Wrenfield 赏金计划细则").model_copy(update={"arxiv_ids": ["2609.01234"]})
    result = check_one(tmp_path, [REPORT, earlier], item, CONFIG)
    assert result.verdict is Verdict.DUPLICATE, result.reason
    assert result.claims[1].best_id == REPORT.id
