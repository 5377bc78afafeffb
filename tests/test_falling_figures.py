"""A percentage written as a fall is no multiple's rise (probe 26).

"统一成 256 token 的 chunk 后 TTFT 降 30%" was known from "Benchmarks show 1.3x TTFT gain over
local disk": ``quantities.one_figure_as`` read 30% as the rise 1.3x is, so 30% was stated and
256 "detail beside figures its records state". A 30% cut is no 1.3x gain."""

from __future__ import annotations

import pytest
from test_dedupe_rules import claim_status, embedded

from kbsearch.records import Kind
from kbsearch.text.quantities import falling_figures, figure_readings, unstated

CUT = "统一成 256 token 的 chunk 后 TTFT 降 30%"


@pytest.mark.parametrize(
    ("text", "falls"),
    [
        (CUT, {"30%"}),
        ("cuts TTFT by 30% on long prompts", {"30%"}),
        ("30% lower time to first token", {"30%"}),
        ("显存减少 25%，吞吐提升 30%", {"25%"}),
        ("Throughput rises 30% with 1.3x fewer misses", set()),
        ("吞吐提升 30%", set()),
    ],
)
def test_a_percentage_after_or_before_a_word_of_falling_is_a_fall(text: str, falls: set[str]) -> None:
    assert falling_figures(text) == falls


def test_a_fall_is_no_multiples_rise_and_a_rise_still_is() -> None:
    assert unstated({"30%", "256"}, {"1.3x"}, figure_readings(CUT)) == {"30%", "256"}
    assert unstated({"30%"}, {"1.3x"}, figure_readings("吞吐提升 30%")) == set()
    assert unstated({"30%"}, {"0.3x"}, figure_readings(CUT)) == set()  # 30% of the base, either way


def test_a_cut_restated_against_a_gain_is_new() -> None:
    known = embedded("jay#3", "", "Benchmarks show 1.3x TTFT gain over local disk", kind=Kind.increment)
    status = claim_status(known, CUT, restatement=False)
    assert not status.known and "30%" in status.new_numbers, status
