"""A key point of a seen item restating a living-doc section's very fact is known from the section
(``dedupe.section_points``, probes 37 and 38: a writer's recap of the doc's baseline was the one
"new" point of a repeat, and a true DUPLICATE came back UPDATE). A survey line sharing the field's
words, or a figure the section does not state, leaves the point new (issue 25)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from support.checking import check_one, said_by

from kbsearch.dedupe.results import ItemResult, Verdict
from kbsearch.dedupe.section_points import states_the_fact
from kbsearch.records import Kind, Record

SECTION = Record(
    id="doc/rl#§1.1",
    kind=Kind.doc_section,
    title="§1.1 策略优化",
    text=(
        "- Fennel（arXiv:2601.55555）是常用基线：在 13B 模型上 RiverBench 得分 58.4，不训练价值网络。\n"
        "- 奖励塑形仍有争议，规则验证器仍是主流做法。"
    ),
    arxiv_ids=["2601.55555"],
    date=dt.date(2026, 11, 1),
)
EARLIER = Record(
    id="kim/2026-11-02#1", kind=Kind.increment, instance="kim", date=dt.date(2026, 11, 2),
    title="Tarn-RL：分桶难度的强化学习", text="", arxiv_ids=["2611.44444"],
    claims=["Tarn-RL 按题目难度分桶采样，在 RiverBench 上得分 63.9"],
)  # fmt: skip


def checked(tmp_path: Path, recap: str) -> ItemResult:
    """Another writer's Tarn-RL item the next day (its paper's id: the same item), its first
    point the earlier record's, its second ``recap``."""
    item = Record(
        id="lou/2026-11-03#2", kind=Kind.increment, instance="lou", date=dt.date(2026, 11, 3),
        title="Tarn-RL：分桶难度的强化学习", text="", arxiv_ids=["2611.44444"],
        claims=["Tarn-RL 按题目难度分桶采样，在 RiverBench 上得分 63.9", recap],
    )  # fmt: skip
    return check_one(tmp_path, [SECTION, EARLIER], item, said_by("lexical"))


def test_a_recap_of_the_sections_baseline_is_known_from_the_section(tmp_path: Path) -> None:
    result = checked(tmp_path, "Fennel 在 13B 模型上 RiverBench 得分 58.4")
    own, recap = result.claims
    assert own.known and own.best_id == EARLIER.id
    assert recap.known and recap.best_id == SECTION.id, recap  # the evidence names the section
    assert recap.evidence and recap.evidence[0].id == SECTION.id and not recap.evidence[0].same_item
    assert result.verdict is Verdict.DUPLICATE, result.reason


def test_a_recap_with_a_figure_the_section_does_not_state_stays_new(tmp_path: Path) -> None:
    result = checked(tmp_path, "Fennel 在 13B 模型上 RiverBench 得分 61.0")
    assert not result.claims[1].known and result.verdict is Verdict.UPDATE


def test_a_point_sharing_a_survey_lines_words_stays_new(tmp_path: Path) -> None:
    """No figure and no coined name: the field's words, not a fact the section states."""
    result = checked(tmp_path, "奖励塑形仍有争议，规则验证器仍是主流做法")
    assert not result.claims[1].known and result.verdict is Verdict.UPDATE


def test_the_line_must_state_each_figure_and_name_of_the_claim() -> None:
    line = "Fennel 在 13B 模型上 RiverBench 得分 58.4"
    assert states_the_fact("基线：Fennel 在 13B 模型上 RiverBench 得分 58.4", line)
    assert not states_the_fact("Fennel 在 13B 模型上 RiverBench 得分 58.4，Tarn-RL 为 63.9", line)
    assert not states_the_fact("Fennel 与 OspreyRL 在 RiverBench 上得分 58.4", line)
