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
        ("向 TileMesh 提交的 PR 仍在 review", Stage.REVIEW, True),
        ("这个特性已合进 vLLM 主分支", Stage.MERGED, True),
        ("The kernel landed in main on Monday", Stage.MERGED, True),
        ("It ships in release 1.3 next to the FP8 kernels", Stage.RELEASED, True),
        ("vLLM 0.27 ships the FP4 KV cache", Stage.RELEASED, True),
        ("SGLang now ships a Rust router", Stage.RELEASED, True),
        ("The connector shipped last week", Stage.RELEASED, True),
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
        "把两个相邻页合进一个大页",  # 合进 a page, not a branch
        "We review prior work on cache eviction",
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


def test_a_stage_in_the_future_with_its_release_is_not_yet_reached() -> None:
    """Probe, 5 December: "PR 已合并进 main，将随下个版本发布" read as released."""
    assert moved_on("状态：PR 已合并进 main，将随下个版本发布", "状态：PR 已开启，review 中") == "review → merged"


@pytest.mark.parametrize(
    ("claim", "passage", "moved"),
    [
        ("状态：从 arXiv 预印本变为 ICLR 2027 正式接收", "状态：arXiv 预印本，代码已开源", "preprint → accepted"),
        ("The paper was accepted at NeurIPS 2026 as a spotlight", "A preprint on arXiv", "preprint → accepted"),
        ("论文已被 ACL 2026 录用", "目前仅有预印本", "preprint → accepted"),
        ("正式发表于 OSDI '26 会议", "被 OSDI '26 接收", "accepted → published"),
        ("The authors withdrew the HydraServe paper", "HydraServe preprint on arXiv", "preprint → withdrawn"),
    ],
)
def test_a_paper_moves_on_from_preprint_to_a_venue_or_withdrawal(claim: str, passage: str, moved: str) -> None:
    """Probe, 5 December: "从 arXiv 预印本变为 ICLR 2027 正式接收" was known from the preprint's
    key point, so the acceptance came out DUPLICATE."""
    assert moved_on(claim, passage) == moved


@pytest.mark.parametrize(
    "claim",
    [
        "decode 节点接收 KV 后直接解码",  # receiving, not a paper accepted
        "Accepted requests are batched by prefix",
        "The scheduler was accepted by the maintainers",  # no venue
        "作者在博客上发表了复现笔记",  # posting a note
        "Error correction codes protect the KV pages",  # a technique
    ],
)
def test_everyday_senses_of_paper_and_correction_words_move_nothing(claim: str) -> None:
    assert moved_on(claim, "A preprint on arXiv describes the method") is None


@pytest.mark.parametrize(
    "claim",
    [
        "此前报道有误：GPU 不能直接按页读取 CXL 内存，KV 页要先经 CPU 中转",
        "更正：P99 延迟降低 40% 是相对 vLLM 原生 LoRA",
        "Correction: the GPU cannot read KV pages in CXL memory directly",
        "Our earlier report was wrong: the speed-up holds only at batch 1",
    ],
)
def test_a_correction_of_what_was_reported_is_news(claim: str) -> None:
    """Probe, 5 December: a retraction shared the words of the passage it corrects, was
    "known" from it, and the correction came out DUPLICATE, blocked by the gate."""
    assert moved_on(claim, "GPU 直接按页读取 CXL 内存，P99 延迟降低 40%") == "reported → corrected"
    assert moved_on(claim, claim) is None  # the same correction again is no news


@pytest.mark.parametrize(
    "text",
    [
        "美国缩略图更正式、精细",  # 更正式: "more formal"
        "无需访问模型内部细节，能有效防止误报",  # 误报: a false alarm
        "降低误报率并提高检测准确性",
        "利用 arXiv 撤稿论文验证不同大语言模型的性能",  # retracted papers as data
        "We evaluate on retracted papers from arXiv",
    ],
)
def test_words_of_the_dev_digests_that_say_no_correction_or_withdrawal(text: str) -> None:
    """Found scanning the dev digests for the new words: none of these is news."""
    assert moved_on(text, "A preprint on arXiv describes the method") is None


@pytest.mark.parametrize(
    "passage",
    [
        "可信度：中高（预印本，附代码链接但尚未开源）",
        "警示：代码尚未公开",
        "代码未公开",
        "The code has not been released",
    ],
)
def test_code_released_moves_on_from_code_not_yet_open(passage: str) -> None:
    """Probe, 6 December: "the authors released the code" was known from tom's "尚未开源"
    and jay's "代码尚未公开": neither side read as a stage."""
    claim = "Code: the authors released the code under Apache-2.0 on GitHub specpipe/specpipe"
    assert moved_on(claim, passage) == "not yet released → released"
    assert moved_on("代码已公开，采用 Apache-2.0 许可", passage) == "not yet released → released"
    assert moved_on(claim, "代码已开源") is None


@pytest.mark.parametrize(
    "text",
    ["开源模型 Llama 3 的推理", "在公开数据集上评测", "在未公开的内部数据上测试", "使用公开的基准"],
)
def test_open_and_public_as_kinds_of_model_or_data_say_no_stage(text: str) -> None:
    assert stage_said(text) is None


def test_a_passage_tells_a_claims_stage_only_when_it_says_that_stage_or_a_later_one() -> None:
    from kbsearch.text.stages import told

    assert told("The PR was merged into main", "PR 已合入主分支")
    assert told("The PR was merged into main", "It ships in release 1.3")  # later still
    assert not told("The PR was merged into main", "The PR is in review")
    assert not told("The PR was merged into main", "The method halves the cache")  # tells no stage
    assert told("更正：加速 2.3 倍（此前报告为 3.1 倍）", "SpecPipe 加速倍数更正：3.1 倍应为 2.3 倍")
    assert not told("更正：加速 2.3 倍", "加速 3.1 倍")
    assert told("The method halves the cache", "anything at all")  # a claim of no stage


@pytest.mark.parametrize(
    "text",
    ["Tidewater 的 vLLM 集成正在评审中", "向上游提交的集成仍在审核", "连接器目前审核中", "该功能正在评审"],
)
def test_plain_chinese_review_without_a_pr_is_the_review_stage(text: str) -> None:
    """Probe 18: jay's "vLLM 集成正在评审中" read as no stage, so spark's "under review"
    the same day passed as an update (unstated → review)."""
    said = stage_said(text)
    assert said is not None and said.stage is Stage.REVIEW
    assert moved_on("The vLLM integration is under review", text) is None


@pytest.mark.parametrize("text", ["论文探讨了在学术同行评审中使用大模型", "在安全审核中发现越狱提示"])
def test_peer_review_and_moderation_are_no_review_stage(text: str) -> None:
    assert stage_said(text) is None
