"""Where a project stands, as a sentence says it (``kbsearch.text.stages``)."""

from __future__ import annotations

import pytest

from kbsearch.text.stages import Stage, moved_on, stage_said


@pytest.mark.parametrize(
    ("text", "stage", "reached"),
    [
        ("The vLLM integration is still under discussion on the issue tracker", Stage.PLANNED, True),
        ("社区还在讨论要不要把它搬过来", Stage.PLANNED, True),
        ("The pull request is open and in review", Stage.REVIEW, True),
        ("目前看到的状态是 review 中", Stage.REVIEW, True),
        ("The PR was merged into main last night", Stage.MERGED, True),
        ("PR 已合入主分支", Stage.MERGED, True),
        ("It ships in release 1.3 next to the FP8 kernels", Stage.RELEASED, True),
        ("随 1.3 版本正式发布", Stage.RELEASED, True),
        ("TGI 正式进入维护模式", Stage.RETIRED, True),
        ("The old scheduler is deprecated", Stage.RETIRED, True),
    ],
)
def test_each_stage_is_read_in_both_languages(text: str, stage: Stage, reached: bool) -> None:
    said = stage_said(text)
    assert said is not None and (said.stage, said.reached) == (stage, reached)


@pytest.mark.parametrize(
    ("text", "stage"),
    [
        ("讨论与原型阶段，尚无合入版本", Stage.PLANNED),  # the latest stage reached, not the negated one
        ("Nothing merged yet", Stage.MERGED),
        ("尚未合入", Stage.MERGED),
        ("The PR has not been merged", Stage.MERGED),
        ("The PR is under review and will be released in 1.3", Stage.REVIEW),
        ("计划于下个版本发布", Stage.PLANNED),
    ],
)
def test_the_latest_stage_reached_wins_and_a_negated_one_is_not_reached(text: str, stage: Stage) -> None:
    said = stage_said(text)
    assert said is not None and said.stage is stage


def test_a_negated_or_future_stage_is_still_before_it() -> None:
    for text in ("Nothing merged yet", "尚无合入版本", "The PR has not been merged", "即将发布"):
        said = stage_said(text)
        assert said is not None and not said.reached, text


@pytest.mark.parametrize(
    "text",
    [
        "论文揭示了大模型在内容审核中存在的主题偏见",  # moderation, not a PR in review
        "通过文本原型引导视觉提示学习",  # a class prototype
        "结合区域提案生成器优化分割掩码",  # a region proposal
        "自适应学习计划在训练中调整数据配比",  # a learning schedule
        "测试版本：vLLM v0.24.x，SGLang v0.5.x",  # the versions tested
        "将相邻 KV 块合并到一个共享池中",  # combining blocks, not merging code
        "The proposed method merges adjacent tokens before attention",
        "We build a prototype and discuss its limitations",
        "The agent plans to call a tool before answering",
        "论文提出了未来十年的发展路线图",
    ],
)
def test_everyday_senses_of_the_words_say_no_stage(text: str) -> None:
    assert stage_said(text) is None


def test_a_claim_moves_on_only_to_a_later_stage_it_says_was_reached() -> None:
    assert moved_on("The PR was merged into main", "目前看到的状态是 review 中") == "review → merged"
    assert moved_on("已合入主分支，随 v0.5.3 发布", "讨论与原型阶段，尚无合入版本") == "planned → released"
    assert moved_on("The PR is now merged", "Nothing merged yet") == "not yet merged → merged"
    assert moved_on("Still under discussion, nothing merged", "讨论阶段，尚无合入版本") is None  # the same stage
    assert moved_on("The PR has not been merged", "The PR is in review") is None  # says nothing later
    assert moved_on("The PR is in review", "The PR was merged into main") is None  # an earlier stage
    assert moved_on("The PR was merged into main", "The method halves the cache") is None  # told no stage
