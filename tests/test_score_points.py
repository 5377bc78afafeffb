"""Probe 31: "约 74 分" against a record's "74.0%" was an UPDATE with new number 74, though one
writer gives a benchmark score in points and the other as a percentage of the same score
(``text.score_points``). A gap in points or a score on another scale stays its own figure."""

from __future__ import annotations

import pytest
from test_dedupe_rules import claim_status, embedded

from kbsearch.records import Kind
from kbsearch.text.score_points import score_points

RECORD = "重跑 bug 修复后的判分脚本，Osprey-3 在 LedgerMath 上的得分由 68.4% 升至 72.0%"


@pytest.mark.parametrize(
    "claim",
    ["修复判分脚本后，Osprey-3 在 LedgerMath 上约 72 分", "修复判分脚本后，Osprey-3 在 LedgerMath 上得 72 分"],
)
def test_a_score_in_points_is_the_records_percentage(claim: str) -> None:
    known = embedded("ada", "Osprey-3 LedgerMath 复测", RECORD, kind=Kind.increment)
    status = claim_status(known, claim, restatement=True)
    assert status.known and status.new_numbers == [] and status.extra_numbers == []


def test_a_gap_in_points_is_not_a_stated_percentage() -> None:
    known = embedded("ada", "Osprey-3 LedgerMath 复测", f"{RECORD}；错误率 5.5%", kind=Kind.increment)
    status = claim_status(known, "修复判分脚本后，Osprey-3 在 LedgerMath 上比基线高 5.5 分", restatement=True)
    assert not status.known


@pytest.mark.parametrize(
    ("text", "points"),
    [
        ("Osprey-3 在 LedgerMath 上平均 70.8 分", {"70.8"}),
        ("满分 100 分，Osprey-3 得 83 分", {"83"}),  # the full mark is the scale, not a score
        ("提升到 74 分，高于 70 分", {"74", "70"}),  # a score reached, a bound on a score
        ("与英语的差距为 19 分", set()),
        ("比基线高 2.7 分，下降了 9 分", set()),
        ("满分 5 分，平均 4.5 分", set()),
        ("用户评分 4.5 分", set()),
        ("10 分制下得 8 分", set()),
        ("评测耗时 45 分钟，第 90 分位延迟", set()),
    ],
)
def test_only_scores_out_of_100_are_read_as_percentages(text: str, points: set[str]) -> None:
    assert score_points(text) == points
