"""A plan or a correction a record of the item tells in other words than a stage's is no move.

Probe 29: spark's "Scale: 12 tanks in the pilot, 200 planned for 2027" was an UPDATE
(unstated → planned) though vera's record said "计划 2027 年扩展到 200 个" (计划 + a year is
no stage ``stage_said`` reads), and vera's "停摆时间更正为 5 小时" was an UPDATE (reported →
corrected) though spark's record had "outage revised: 5 hours", "not the 3 hours first reported".
A real move stays news: a plan becoming a release, a correction no record tells."""

from __future__ import annotations

import pytest
from test_claim_said import ALWAYS, record, said

from kbsearch.text.stages import moved_on, stage_said, told, untold

PLAN_ZH = "规模：试点共 8 个冷却槽，计划 2028 年扩展到 120 个"
PLAN_EN = "Scale: 8 tanks in the pilot, 120 planned for 2028"
FIRST = "Falcon Labs training outage: 4 hours, root cause still open"
REVISED_TITLE = "Falcon Labs outage revised: 7 hours, switch firmware at fault"
REVISED = "Duration: the outage is now put at 7 hours, not the 4 hours first reported"
CORRECTION_ZH = "时长：中断时间更正为 7 小时，此前报的 4 小时只算到重启为止"


def test_a_plan_a_record_tells_in_other_words_is_no_untold_stage() -> None:
    assert stage_said(PLAN_ZH) is None  # no stage read: the plan is told only loosely
    assert untold(PLAN_EN, [PLAN_ZH]) is None
    assert untold("Heron DC 计划在 2028 年推出第二期", ["Phase two is on the 2028 plan"]) is None


@pytest.mark.parametrize(
    ("claim_text", "records", "moved"),
    [
        (PLAN_EN, ["规模：试点共 8 个冷却槽"], "unstated → planned"),  # no record tells a plan
        ("Heron DC 的 120 个冷却槽已正式上线", [PLAN_ZH], "unstated → released"),  # a plan became a release
        ("The PR was merged into main", ["计划 2028 年合入"], "not yet merged → merged"),
        # A pull request no record names: only its own stage tells it, not a loose word.
        ("PR #4410 has been merged into main", ["merging KV blocks halves memory"], "unstated → merged"),
    ],
)
def test_a_real_move_from_a_plan_stays_news(claim_text: str, records: list[str], moved: str) -> None:
    assert (untold(claim_text, records) or moved_on(claim_text, records[0])) == moved


def test_a_correction_a_record_of_the_item_tells_in_any_words_is_no_move() -> None:
    assert moved_on(CORRECTION_ZH, REVISED) is None  # "first reported"
    assert told(CORRECTION_ZH, REVISED)
    assert moved_on("损失：更正为约 3,200 GPU·小时", "Cost: the loss is revised to about 3,200 GPU-hours") is None
    # The passage weighed tells none; another record of the item does.
    assert moved_on(CORRECTION_ZH, FIRST, [FIRST, REVISED_TITLE]) is None


def test_a_correction_no_record_tells_stays_a_move() -> None:
    assert moved_on(CORRECTION_ZH, FIRST, [FIRST, "Scope: 256 GPUs stalled"]) == "reported → corrected"
    assert not told(CORRECTION_ZH, FIRST)


def test_the_probes_plan_restated_in_english_is_known() -> None:
    zh = record("vera", "Heron DC 浸没式液冷试点：单槽 90 kW", "方案：单相浸没式液冷", PLAN_ZH)
    status = said(PLAN_EN, zh, same={"vera"}, shape=ALWAYS)
    assert status.known and status.moved_on is None  # type: ignore[attr-defined]
    silent = record("vera", "Heron DC 浸没式液冷试点：单槽 90 kW", "规模：试点共 8 个冷却槽，扩展到 120 个")
    release = said("Scale: 120 tanks released in 2028", silent, same={"vera"}, shape=ALWAYS)
    assert not release.known and release.moved_on == "unstated → released"  # type: ignore[attr-defined]


def test_the_probes_correction_already_reported_by_another_writer_is_known() -> None:
    first = record("doc", "Falcon Labs training outage", FIRST)
    revised = record("spark", REVISED_TITLE, REVISED, "Cost: the loss is revised to about 3,200 GPU-hours")
    status = said(CORRECTION_ZH, first, revised, same={"doc", "spark"}, shape=ALWAYS)
    assert status.known and status.moved_on is None  # type: ignore[attr-defined]
    alone = said(CORRECTION_ZH, first, same={"doc"}, shape=ALWAYS)
    assert not alone.known and alone.moved_on == "reported → corrected"  # type: ignore[attr-defined]
