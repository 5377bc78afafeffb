"""A thing put out (published, posted, uploaded, made available, 上传, 公开, 开放) or a regulator's
approval (cleared, approved, 获批) after a plan or a promise of it is a stage moved on, in either
language; the same done fact retold is not (``text.release_verbs``, ``text.artefacts``; probe 50:
"weights were published" was known from "weights are planned for release", "已上传 arXiv" from
"将在两周内上传 arXiv"). The fixtures are written for these tests."""

from __future__ import annotations

import pytest

from kbsearch.text.stages import Stage, moved_on, stage_said, told


@pytest.mark.parametrize(
    ("text", "stage", "reached"),
    [
        ("The v2 checkpoints were posted to Hugging Face on 4 May", Stage.RELEASED, True),
        ("Code and weights are up on GitHub", Stage.RELEASED, True),
        ("Weights published on ModelScope under MIT", Stage.RELEASED, True),
        ("The evaluation report is on arXiv now", Stage.RELEASED, True),
        ("The dataset is made publicly available for research use", Stage.RELEASED, True),
        ("The lab posted its technical report this morning", Stage.RELEASED, True),
        ("技术白皮书已上传至 arXiv", Stage.RELEASED, True),
        ("权重已在 ModelScope 公开", Stage.RELEASED, True),
        ("v2 于 5 月 4 日正式开放权重，许可为 MIT", Stage.RELEASED, True),
        ("The weights will be published after the audit", Stage.RELEASED, False),
        ("The report is expected to be posted to arXiv next month", Stage.RELEASED, False),
        ("厂商表示技术白皮书将在一个月内上传 arXiv", Stage.RELEASED, False),
        ("代码拟于月底上传 GitHub", Stage.RELEASED, False),
        ("Weights: promised for the 1.0 release", Stage.PLANNED, True),
        ("The FDA cleared Orvix-Scan for wrist-fracture triage", Stage.APPROVED, True),
        ("Orvix-Scan received 510(k) clearance on 2 May", Stage.APPROVED, True),
        ("Orvix-Scan 获国家药监局批准上市", Stage.APPROVED, True),
        ("Orvix-Scan 已向 NMPA 提交注册申请，有望年内获批", Stage.APPROVED, False),
    ],
)
def test_putting_out_and_approval_are_read_in_both_languages(text: str, stage: Stage, reached: bool) -> None:
    said = stage_said(text)
    assert said is not None and (said.stage, said.reached) == (stage, reached), said


@pytest.mark.parametrize(
    "text",
    [
        "The study was published in The Lancet Digital Health",  # a paper's venue: the paper's track
        "We evaluate on newly published datasets from 2025",  # describes the data
        "Risk scores are made available to nurses at triage",  # nothing put out
        "Photos uploaded by users are screened first",
        "患者上传的图片先经过质量筛查",
        "在公开数据集上评测",
        "基于开放权重模型微调",
        "The trial protocol was approved by the ethics committee",  # no regulator
        "经医院伦理委员会批准",
        "The KV cache is cleared after each request",
        "发布方称新版本更稳定",  # the party that releases, not a release
    ],
)
def test_everyday_senses_of_the_verbs_tell_no_stage(text: str) -> None:
    assert stage_said(text) is None


PLANNED = "Checkpoints are planned for release in May"
PROMISED = "The team says an evaluation report will be on arXiv within a month"
WHITEPAPER_TO_COME = "厂商表示技术白皮书将在一个月内上传 arXiv"
FILED = "Orvix-Scan 已向 FDA 提交 510(k)，预计明年获批"


@pytest.mark.parametrize(
    ("claim", "passage", "moved"),
    [
        ("The v2 checkpoints were posted to Hugging Face", PLANNED, "planned → released"),
        ("The evaluation report was posted to arXiv on 4 May", PROMISED, "not yet released → released"),
        ("技术白皮书已上传 arXiv（2605.01234）", WHITEPAPER_TO_COME, "not yet released → released"),
        ("Whitepaper uploaded to arXiv on 4 May", WHITEPAPER_TO_COME, "not yet released → released"),
        ("Orvix-Scan received FDA 510(k) clearance", FILED, "not yet approved → approved"),
        ("Orvix-Scan 已获 NMPA 批准", "Orvix-Scan is under NMPA review", "review → approved"),
    ],
)
def test_done_after_planned_or_promised_moves_on(claim: str, passage: str, moved: str) -> None:
    assert moved_on(claim, passage) == moved


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        ("The v2 checkpoints were posted to Hugging Face", "v2 检查点已上传 Hugging Face"),
        ("The evaluation report is on arXiv", "评测报告已上传 arXiv"),
        ("技术白皮书已上传 arXiv", "The whitepaper was posted to arXiv on 4 May"),
        ("FDA cleared Orvix-Scan in May", "FDA 已于 5 月批准 Orvix-Scan"),
        ("Orvix-Scan 获 FDA 批准", "Clearance: FDA 510(k) cleared Orvix-Scan on 2 May"),
    ],
)
def test_a_retelling_of_the_same_done_fact_moves_nothing(claim: str, passage: str) -> None:
    assert moved_on(claim, passage) is None
    assert told(claim, passage)


def test_each_thing_put_out_is_read_at_its_own_stage() -> None:
    """The passage tells the code out and the checkpoints to come: its latest stage (the code's)
    is the claim's, yet the checkpoints moved on."""
    plan = "Release plan: code is on GitHub today; checkpoints are planned for release in May"
    claim = "The v2 checkpoints were posted to Hugging Face"
    assert moved_on(claim, plan) == "planned → released"
    assert not told(claim, plan)
    assert moved_on("检查点已于 5 月 4 日上传 Hugging Face", "开放：代码已在 GitHub 公开；检查点计划 5 月发布") == (
        "not yet released → released"
    )
    assert moved_on("The code is on GitHub", plan) is None  # the code's stage, told
    assert moved_on("Code and checkpoints are both out", "代码与检查点均已公开") is None
