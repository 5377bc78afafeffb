"""Issue 25: a claim's figure that is a change its record states written another way (the
difference, ratio or percent change of "from 31.86% to 39.80%", "120 ms → 40 ms") is no new
number; two figures the record does not set as a change, and a changed count, stay new.
With the fake encoder."""

from __future__ import annotations

import pytest
from test_claim_said import record, said
from test_dedupe_rules import claim_status, embedded

from kbsearch.records import Kind
from kbsearch.text.differences import change_pairs, derived_figures

ACCURACY = "ReasonKV raises GSM8K accuracy from 31.86% to 39.80% with the same budget."
ACCURACY_ZH = "ReasonKV 在相同预算下将 GSM8K 准确率从 31.86% 提升至 39.80%。"
LATENCY = "ReasonKV cuts decode latency from 120 ms to 40 ms on long prompts."
LATENCY_ZH = "ReasonKV 将解码延迟从 120 毫秒降低到 40 毫秒。"
UNRELATED = "ReasonKV reaches 39.80% accuracy on GSM8K and 31.86% on MATH."


@pytest.mark.parametrize(
    ("claim", "record_text", "expected"),
    [
        ("ReasonKV improves GSM8K accuracy by 7.94%", ACCURACY, {"7.94%"}),  # a difference
        ("ReasonKV 将 GSM8K 准确率提升 7.94 个百分点", ACCURACY_ZH, {"7.94"}),
        ("GSM8K accuracy is up 7.94 pp", ACCURACY, {"7.94"}),
        ("ReasonKV gives 3x lower decode latency", LATENCY, {"3x"}),  # a ratio
        ("ReasonKV 解码延迟降低 67%", LATENCY_ZH, {"67%"}),  # a percent change
        ("ReasonKV 解码延迟降低 3 倍", LATENCY_ZH, {"3x"}),
        ("decode latency falls by 80 ms", "latency 120 ms → 40 ms", {"80ms"}),
        ("adds 600 tokens/s", "throughput from 1,200 to 1.8k tokens/s", {"600"}),
        ("accuracy gap of 7.9%", "39.80% vs 31.86% for the baseline", {"7.9%"}),
        ("ReasonKV gives 2x lower decode latency", LATENCY, set()),  # 3x is no 2x
        ("ReasonKV improves accuracy by 7.94%", UNRELATED, set()),  # no change of one quantity
        ("training now runs on 4 GPUs", "training scales from 8 to 12 GPUs", set()),  # a changed count
        ("adds 600 tokens/s", "throughput from 1,200 to 1.8k GPUs", set()),  # another word counted
        ("decode latency falls by 80%", "latency 120 ms → 40 ms", set()),  # 67% is no 80%
    ],
)
def test_a_claim_figure_is_a_change_the_record_sets_written_another_way(
    claim: str, record_text: str, expected: set[str]
) -> None:
    assert derived_figures(claim, [record_text]) == expected


def test_only_a_change_of_one_unit_is_a_pair() -> None:
    assert change_pairs("from 2x to 3x faster") == ()  # a speed-up's change
    assert change_pairs("from 8 to 12 GPUs") == ()  # a count of accelerators
    assert change_pairs("from 40% to 120 ms") == ()
    [(start, end)] = change_pairs("from 120 to 40 ms")  # the start written bare has the end's unit
    assert (start[0], end[0]) == ("120ms", "40ms")


@pytest.mark.parametrize(
    ("known_text", "claim"),
    [
        (ACCURACY, "ReasonKV raises GSM8K accuracy by 7.94% with the same budget."),
        (ACCURACY_ZH, "ReasonKV 在相同预算下将 GSM8K 准确率提升 7.94 个百分点。"),
        (LATENCY, "ReasonKV gives 3x lower decode latency on long prompts."),
        (LATENCY_ZH, "ReasonKV 将解码延迟降低 67%。"),
    ],
)
def test_a_claim_giving_a_known_change_another_way_is_known(known_text: str, claim: str) -> None:
    known = embedded("k", "", known_text, kind=Kind.increment)
    status = claim_status(known, claim, restatement=True)
    assert status.new_numbers == [] and status.known


@pytest.mark.parametrize(
    ("known_text", "claim", "new"),
    [
        (UNRELATED, "ReasonKV improves GSM8K accuracy by 7.94%.", ["7.94%"]),
        (
            "ReasonKV serves Llama 70B on 8 GPUs, scaling from 8 to 12 GPUs.",
            "ReasonKV serves Llama 70B on 4 GPUs.",
            ["4"],
        ),
    ],
)
def test_unrelated_figures_or_a_changed_count_stay_new(known_text: str, claim: str, new: list[str]) -> None:
    known = embedded("k", "", known_text, kind=Kind.increment)
    status = claim_status(known, claim, restatement=True)
    assert status.new_numbers == new and not status.known


def test_the_form_counts_no_missing_number_for_a_known_change_written_another_way() -> None:
    """``numbers_missing``, a feature of the fitted form, reads the change too."""
    known = record("k", "reasonkv", ACCURACY)
    status = said("ReasonKV raises GSM8K accuracy by 7.94% with the same budget.", known, same={"k"})
    [evidence] = status.evidence  # type: ignore[attr-defined]
    assert evidence.features["numbers_missing"] == 0.0 and evidence.new_numbers == []
    assert status.new_numbers == []  # type: ignore[attr-defined]
