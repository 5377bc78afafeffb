"""What a figure measures: a record's 71% of a hit rate is not a claim's 71% drop in memory
(probe, 5 December: such a claim was known, so a repeat with a new figure came out DUPLICATE)."""

from __future__ import annotations

import pytest

from kbsearch.text.measures import clauses, given_otherwise, measured_again, measured_elsewhere

EXPERTFLOW = "方法：预取命中率从 92% 降到 71%\n显存占用降到 47GB，Mixtral 8x22B 可在单张 H100 上推理"


@pytest.mark.parametrize(
    ("claim", "known"),
    [
        ("复现结果：显存占用下降 71%", EXPERTFLOW),
        ("Memory use drops 71%.", "The prefetch hit rate falls from 92% to 71%. Memory use falls to 47GB on one H100."),
    ],
)
def test_a_figure_the_record_gives_for_another_quantity_is_measured_elsewhere(claim: str, known: str) -> None:
    assert measured_elsewhere(claim, clauses(known)) == {"71%"}


@pytest.mark.parametrize(
    ("claim", "known"),
    [
        # One quantity reworded: no clause of the record gives the claim's words another figure.
        ("首 token 延迟下降 31%", "TTFT 降低 31%，吞吐基本不变"),
        # The record's clause of the figure shares the claim's words.
        ("显存占用下降 71%", "显存占用下降 71%，预取命中率 92%"),
        # Across languages no clause shares a word whatever it measures: the value is all there is.
        ("Memory use drops 71%", EXPERTFLOW),
        # A figure the record does not give at all is another rule's business (new_figures).
        ("显存占用下降 64%", EXPERTFLOW),
    ],
)
def test_a_figure_is_not_taken_for_another_quantity_without_evidence(claim: str, known: str) -> None:
    assert measured_elsewhere(claim, clauses(known)) == set()


def test_a_clause_that_names_nothing_belongs_to_the_one_before() -> None:
    """Dev feed, 5 December: "（mAP@50 从 5.92 到 7.51，19.83 到 25.82）" split at its comma left
    "19.83 到 25.82" a clause of its own, sharing no word with the claim's "提升到 25.82"."""
    known = "TF-CoVR-Base 显著提升了检索性能（mAP@50从5.92到7.51，19.83到25.82）。"
    assert measured_elsewhere("TF-CoVR-Base 显著提升了检索性能（mAP@50从5.92提升到25.82）", clauses(known)) == set()


RELEASE_NOTE = "数字：官方 release note 称在 Llama 3.3 70B 上 TTFT 下降 35%"


@pytest.mark.parametrize(
    "claim",
    [
        "A community rerun measured only a 28% TTFT drop, below the 35% in the release note",
        "社区复测（Llama 3.3 70B，H100×16）TTFT 只下降 28%，低于官方所说的 35%",
        "TTFT drops 28% in a rerun vs. the official 35%",
    ],
)
def test_a_figure_the_claim_quotes_to_set_its_own_against_is_measured_again(claim: str) -> None:
    """Probe, 6 December: a rerun's 28% beside the release note's 35% was known, the 28%
    shown as detail ([also: 28%]), since the claim restates the record's figure."""
    assert measured_again(claim, clauses(RELEASE_NOTE)) == {"35%"}


@pytest.mark.parametrize(
    ("claim", "known"),
    [
        # The record's figure restated with another quantity's beside it: detail, not set against.
        ("TTFT 下降 35%，吞吐提升 20%", RELEASE_NOTE),
        # A bound the record states too ("低于10%") is no figure of another source.
        ("准确率低于10%，与只看最终答案相比下降了65.5%", "整体准确率低于10%，揭示了模型的脆弱性"),
        # Nothing but a single character shared: no evidence of one quantity.
        ("在 H100 上只有 28%，低于官方所说的 35%", "在 B200 上 TTFT 下降 35%"),
        # No figure of the claim's own set against the quoted one.
        ("TTFT 下降，与官方所说的 35% 一致", RELEASE_NOTE),
    ],
)
def test_a_quoted_figure_is_not_measured_again_without_a_figure_of_the_claims_own_for_it(
    claim: str, known: str
) -> None:
    assert measured_again(claim, clauses(known)) == set()


@pytest.mark.parametrize(
    ("claim", "passage", "expected"),
    [
        # Probe 6: the card's 47% against tom's 41%, one quantity (TTFT) in either language.
        ("8×H100、128K 上下文 TTFT 降低 47%", "效果：8×H100、128K 上下文下 TTFT 降低 41%", {"47%"}),
        ("TTFT drops 47% at 128K context", "效果：8×H100、128K 上下文下 TTFT 降低 41%", {"47%"}),
        # The passage states the claim's figure, or gives another quantity's, or a bound: no other figure.
        ("TTFT drops 47% at 128K context", "TTFT reduction at 128K is now 47% (v1 said 41%)", set()),
        ("TTFT 降低 47%", "吞吐提升 41%", set()),
        ("准确率下降 7%", "整体准确率低于 10%", set()),
        # A figure the claim restates beside its own is no other figure.
        ("TTFT 降低 47%（v1 为 41%）", "TTFT 降低 41%", set()),
    ],
)
def test_a_passage_giving_the_claims_quantity_another_figure(claim: str, passage: str, expected: set[str]) -> None:
    assert given_otherwise(claim, clauses(passage)) == expected
