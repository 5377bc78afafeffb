"""Probe 31: "已正式宣布退役" (retired) against a record's "plans to retire" was known: the record's
plan to retire read no stage, so nothing moved on. A plan to retire, deprecate or sunset is a plan,
and its retirement the later stage, as a release after a plan is."""

from __future__ import annotations

import pytest
from test_dedupe_rules import claim_status, embedded

from kbsearch.records import Kind
from kbsearch.text.stages import Stage, moved_on, stage_said

PLAN_EN = "Kestrel Labs says it plans to retire the TallyQA leaderboard once its harder split is ready"
PLAN_ZH = "Kestrel Labs 计划在更难的子集就绪后退役 TallyQA 排行榜"


@pytest.mark.parametrize(
    ("text", "stage", "reached"),
    [
        (PLAN_EN, Stage.PLANNED, True),
        ("The team intends to deprecate the v1 API next quarter", Stage.PLANNED, True),
        (PLAN_ZH, Stage.RETIRED, False),  # 计划 before 退役: not yet retired
        ("The v1 endpoint was discontinued in March", Stage.RETIRED, True),
        ("旧版推理接口已于本月停止服务", Stage.RETIRED, True),
    ],
)
def test_a_plan_to_retire_and_a_retirement_are_read(text: str, stage: Stage, reached: bool) -> None:
    said = stage_said(text)
    assert said is not None and (said.stage, said.reached) == (stage, reached)


@pytest.mark.parametrize(
    ("claim", "passage", "moved"),
    [
        ("Kestrel Labs 已正式宣布 TallyQA 排行榜退役", PLAN_EN, "planned → retired"),
        ("Kestrel Labs has now retired the TallyQA leaderboard", PLAN_EN, "planned → retired"),
        ("Kestrel Labs 已正式宣布 TallyQA 排行榜退役", PLAN_ZH, "not yet retired → retired"),
        ("Kestrel Labs plans to retire the TallyQA leaderboard", PLAN_EN, None),  # the plan restated
    ],
)
def test_a_retirement_moves_a_plan_to_retire_on(claim: str, passage: str, moved: str | None) -> None:
    assert moved_on(claim, passage) == moved


def test_a_retirement_after_a_plan_to_retire_is_a_new_claim() -> None:
    known = embedded("ada", "TallyQA 排行榜饱和", f"五个模型已超过 90%。{PLAN_EN}", kind=Kind.increment)
    # As a restatement (the item's words said again), only a figure or a stage makes it new.
    status = claim_status(known, "Kestrel Labs has now retired the TallyQA leaderboard", restatement=True)
    assert not status.known and status.moved_on == "planned → retired"
