"""A claim telling a stage or a fix that no record of its item tells is new
(``stages.untold``), however near its words are to a passage that tells none.

Probe, 7 December: "the FP4 cache merged in PR #15321 ships in the v0.6 release" was known
from a key point on the FP4 memory saving (no stage in the record at all), "代码已开源" from a
card's title that never mentions code, and "Fixes a throughput regression" from a release's
key point that never mentions a regression: each item a DUPLICATE, or a new fact hidden."""

from __future__ import annotations

import pytest
from test_claim_lines import claim, lines
from test_claim_said import ALWAYS, ENCODER, record, said

from kbsearch.dedupe.rules import Embedded
from kbsearch.records import Kind, Record
from kbsearch.text.stages import stage_said, untold

SHIPS = "the FP4 cache merged in PR #881 ships in the v2.1 release and is on by default"
OPENED = "代码已开源（GitHub quillkit/quillkit）"
MERGED_PR = "我们提交的 PR #18234 已被上游合入主分支，下个版本将恢复默认值"
FIXED = "Fixes a throughput regression in the new scheduler for long prompts"
MERGED = "TileMesh 的前缀缓存页复用已合进 vLLM 主分支，随 0.9.2 发布"
TITLE = "TileMesh：Agent 循环复用前缀缓存页"


@pytest.mark.parametrize(
    ("claim_text", "records", "moved"),
    [
        (SHIPS, ["FP4 cache halves cache memory against FP8"], "unstated → released"),
        (OPENED, ["QuillKit: planning tool calls as a graph", "71.2% success on a benchmark"], "unstated → released"),
        ("The PR was merged into main", ["The scheduler keeps prompts in order"], "unstated → merged"),
        # A pull request no record names: another stage a record tells is another thing's.
        (MERGED_PR, ["升级到 v0.30.2 后命中率下降", "命中率低于 60% 阻断发布"], "unstated → merged"),
        (SHIPS, ["FP4 cache halves memory", "A TensorRT-LLM PR is in review"], "unstated → released"),
        # The same number of another project's pull request is another pull request.
        ("vLLM PR #18234 已被合入主分支", ["升级后命中率下降", "SGLang PR #18234 仍在 review 中"], "unstated → merged"),
        ("SGLang 的 PR #18234 已合入", ["vllm-project/vllm#18234 is in review"], "unstated → merged"),
        (FIXED, ["The new scheduler is on by default", "18% higher throughput"], "unstated → fixed"),
        ("修复了长 prompt 下的吞吐回归问题", ["新调度器默认开启"], "unstated → fixed"),
    ],
)
def test_a_stage_or_fix_no_record_tells_is_untold(claim_text: str, records: list[str], moved: str) -> None:
    assert untold(claim_text, records) == moved


@pytest.mark.parametrize(
    ("claim_text", "records"),
    [
        (SHIPS, ["FP4 cache halves memory", "It ships in the v2.1 release"]),  # the stage, in another record
        (SHIPS, ["Released in v2.2, the FP4 cache halves memory"]),  # a later release tells this one
        # A stage told elsewhere in the record is moved_on's, on the passage weighed: it may be another's.
        ("the FP4 cache ships in the v2.1 release", ["FP4 cache halves memory", "A TensorRT-LLM PR is in review"]),
        # A pull request the claim names, merged where a record tells it so.
        (MERGED_PR, ["临时设回 block_size=16", "上游修复已合入主分支"]),
        # A project the claim names, at the claim's stage in one record, in review in another.
        (MERGED, [TITLE, "向 vLLM 提交的 PR 正在 review", "已合入 vLLM 主分支，随 0.9.2 发布"]),
        (MERGED, [TITLE, "A pull request to SGLang is in review"]),  # another project's stage
        ("It ships as a plugin for vLLM", ["Installs as a vLLM plugin"]),  # packaging, not a release
        (SHIPS, ["FP4 cache on by default in v2.1"]),  # names the version it ships in
        (OPENED, ["提出依赖图规划，并开源代码以促进研究"]),  # a release in looser words
        (OPENED, ["Code at github.com/quillkit/quillkit"]),
        ("同时发布了 QuillBench 数据集", ["构建了 QuillBench 用于评估"]),  # a paper's data set
        (FIXED, ["0.31.1 patches a scheduler regression"]),
        ("基于扩散模型的图像修复", ["一种图像复原方法"]),  # restoration, not a bug fix
        ("The team will fix the crash in the next release", ["The scheduler keeps prompts in order"]),
        ("Nothing merged yet", ["The scheduler keeps prompts in order"]),  # a stage not reached
        ("The scheduler keeps prompts in order", ["Another sentence"]),  # no stage at all
        ("camera-ready 版本成功率 71.2%，与预印本一致", ["71.2% success"]),  # a paper's venue, in passing
    ],
)
def test_a_stage_or_fix_a_record_tells_or_none_reached_is_not_untold(claim_text: str, records: list[str]) -> None:
    assert untold(claim_text, records) is None


def test_a_release_said_by_a_passage_that_tells_no_stage_is_new() -> None:
    """The form says the key point says the claim (the probe's 0.54 ≥ 0.08); the record never
    tells a release, so the claim is new, and its line says why."""
    known = record("spark", "sglang adds the FP4 cache", "FP4 cache halves cache memory against FP8")
    status = said(SHIPS, known, same={"spark"}, shape=ALWAYS)
    assert not status.known and status.moved_on == "unstated → released"  # type: ignore[attr-defined]
    assert not status.said_by_another_item  # type: ignore[attr-defined]
    memory = said("FP4 cache halves cache memory against FP8", known, same={"spark"}, shape=ALWAYS)
    assert memory.known  # type: ignore[attr-defined]


def test_a_merge_of_a_pull_request_beside_a_record_telling_another_release_is_new() -> None:
    """Probe, 6 December: jay's "PR #18234 已被 vLLM 合入主分支" was known at 0.157 from tom's
    root cause, his record's only stage being "阻断发布" (a rollout it blocks)."""
    known = record("tom", "block_size 默认值变更事故", "根因：新版把默认 block_size 从 16 改成 32", "低于 60% 阻断发布")
    status = said(MERGED_PR, known, same={"tom"}, shape=ALWAYS)
    assert not status.known and status.moved_on == "unstated → merged"  # type: ignore[attr-defined]


def test_a_release_another_record_of_the_item_tells_stays_known() -> None:
    """The passage weighed tells no release, but another record of the item does."""
    memory = record("spark", "sglang adds the FP4 cache", "FP4 cache halves cache memory against FP8")
    release = record("tom", "sglang v2.1", "sglang v2.1 was released with the FP4 cache on by default")
    claim_text = "the FP4 cache halves cache memory against FP8 and ships in the v2.1 release"
    status = said(claim_text, memory, release, same={"spark", "tom"}, shape=ALWAYS)
    assert status.known  # type: ignore[attr-defined]


def test_the_cosine_decision_reads_the_untold_stage_too() -> None:
    from test_dedupe_rules import CONFIG

    from kbsearch.dedupe.claims import judge_claim

    card = record("card", "QuillKit: planning tool calls as a graph", "71.2% success on a hard benchmark")
    vector = ENCODER.encode([OPENED])[0]
    status = judge_claim(OPENED, vector, [], [card], CONFIG, restatement=True)
    assert not status.known and status.moved_on == "unstated → released"
    success = "71.2% success on a hard benchmark"
    assert judge_claim(success, ENCODER.encode([success])[0], [], [card], CONFIG, restatement=True).known


def test_an_untold_stage_says_the_records_never_tell_it_not_an_earlier_stage() -> None:
    untold_line = claim(False, 0.7).model_copy(update={"moved_on": "unstated → released"})
    [line] = lines(untold_line)
    assert "0.70 ≥ 0.50, but its records never tell that [moved on: unstated → released]" in line


@pytest.mark.parametrize(
    ("claim_text", "records", "moved"),
    [
        # Probe 11: tom's "已合入 SGLang 主分支，随 0.6.1 发布" was known from spark's title, the
        # record's "向 SGLang 提交的 PR 正在 review" (and jay's "under review") in other passages.
        (MERGED, [TITLE, "向 vLLM 提交的 PR 正在 review"], "review → released"),
        (MERGED, [TITLE, "Status: pull request to vLLM under review"], "review → released"),
        ("TileMesh landed in vLLM main", [TITLE, "TileMesh 尚未合入 vLLM"], "not yet merged → merged"),
        # A pull request the claim names, by its number, keyed by its project where both name one.
        (MERGED_PR, ["临时设回 block_size=16", "PR #18234 仍在 review 中"], "review → merged"),
        ("vLLM PR #18234 已被合入主分支", ["vllm-project/vllm#18234 仍在 review 中"], "review → merged"),
        ("SGLang 的 PR #18234 已合入", ["SGLang PR #18234 is in review"], "review → merged"),
        ("vLLM PR #18234 已被合入主分支", ["PR #18234 仍在 review 中"], "review → merged"),
        (MERGED_PR, ["SGLang PR #18234 仍在 review 中"], "review → merged"),
    ],
)
def test_a_later_stage_of_what_a_record_tells_in_another_passage_is_new(
    claim_text: str, records: list[str], moved: str
) -> None:
    assert untold(claim_text, records) == moved


def test_a_merge_a_record_saw_in_review_is_new_whichever_passage_is_weighed() -> None:
    """Probe 11: the passage weighed (spark's title and TLDR) tells no stage; the PR in review
    is in a key point of spark's and of jay's record, so neither moved_on nor "unstated" fired."""
    tldr = "TileMesh 让 Agent 每一步复用前缀缓存页"
    spark = _with_text("spark", TITLE, tldr, "多轮轨迹上首 token 延迟降低 40%", "向 vLLM 提交的 PR 正在 review")
    jay = _with_text("jay", "TileMesh prefix page reuse", "Shares prefix pages", "Pull request to vLLM under review")
    status = said(MERGED, spark, jay, same={"spark", "jay"}, shape=ALWAYS)
    assert stage_said(status.best_text) is None  # type: ignore[attr-defined]
    assert not status.known and status.moved_on == "review → released"  # type: ignore[attr-defined]
    latency = said("多轮轨迹上首 token 延迟降低 40%", spark, jay, same={"spark", "jay"}, shape=ALWAYS)
    assert latency.known  # type: ignore[attr-defined]


def _with_text(rid: str, title: str, text: str, *claims: str) -> Embedded:
    """A record of a TLDR and key points, as a briefing's increment is read."""
    rec = Record(id=rid, kind=Kind.increment, title=title, text=text, claims=list(claims))
    return Embedded(rec, ENCODER.encode(rec.passages()))
