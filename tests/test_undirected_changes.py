"""Probe 31: a figure changed with no word of direction ("由 34% 变为 37%", "changed from 34% to
37%", "the best pass rate of 34% becomes 37%") is a changed figure of the record that gave the
first one, not detail beside it: the claim was known with 37% shown as an extra number."""

from __future__ import annotations

import pytest
from test_dedupe_rules import claim_status, embedded

from kbsearch.records import Kind
from kbsearch.text.told_changes import figures_changed

RECORD = "Quarry-Ops 收录 80 个多步运维任务，按最终状态自动判分；目前最好的智能体通过率只有 52%"
RECORD_EN = "Quarry-Ops has 80 multi-step ops tasks graded by final state; the best agent pass rate is only 52%"


@pytest.mark.parametrize(
    "claim",
    [
        "修复判分脚本后，最好的智能体通过率由 52% 变为 58%",
        "修复判分脚本后，最好的智能体通过率从 52% 变成 58%",
        "After the grader fix, the best agent's pass rate changed from 52% to 58%",
        "After the grader fix, the best agent pass rate of 52% becomes 58%",
    ],
)
def test_a_stated_figure_changed_without_a_direction_is_a_new_figure(claim: str) -> None:
    text = RECORD_EN if claim.startswith("After") else RECORD
    known = embedded("ada", "Quarry-Ops 运维智能体基准", text, kind=Kind.increment)
    status = claim_status(known, claim, restatement=False)
    assert not status.known and status.new_numbers == ["58%"]


def test_a_change_without_a_direction_is_read_as_a_change() -> None:
    assert figures_changed("通过率由 52% 变为 58%") == [({"52%"}, {"58%"})]
    assert figures_changed("the pass rate shifted from 52% to 58%") == [({"52%"}, {"58%"})]
    assert figures_changed("a pass rate of 52% became 58%") == [({"52%"}, {"58%"})]
    assert figures_changed("v1.3 becomes the default") == []  # a version, no figure changed
    assert figures_changed("从串行变为并行") == [(set(), set())]  # no figures: nothing to place
