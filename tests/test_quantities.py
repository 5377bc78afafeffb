"""Issue 25: a claim's numbers against what the record states. Another writer of the
same paper rounds, or adds a figure beside one the record states; neither is news.
A figure that changes what the record measures (8 → 4 H200) always is."""

from __future__ import annotations

import pytest
from test_dedupe_rules import claim_status, embedded

from kbsearch.records import Kind
from kbsearch.text.quantities import added_counts, approximate_figures, new_figures, same_figure, unstated
from kbsearch.text.textsim import numbers, substantive_numbers


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("收集了63万条轨迹", "631,200 trajectories"),
        ("提速1.5倍", "a 1.52x speed-up"),
        ("4.2 million vectors", "420万个向量"),
        ("1.2万亿 tokens", "1.2 trillion tokens"),
    ],
)
def test_one_figure_rounded_by_another_writer_is_stated(one: str, other: str) -> None:
    (rounder,), (precise,) = numbers(one), numbers(other)
    assert same_figure(rounder, precise) and same_figure(precise, rounder)
    assert unstated({rounder}, {precise}) == set()


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("2x", "2.4x"),  # one significant digit says too little to be the same figure
        ("40%", "40.5%"),
        ("428k", "429k"),
        ("40%", "40x"),  # another unit is another quantity
        ("16", "16%"),
    ],
)
def test_different_figures_are_not_one(one: str, other: str) -> None:
    assert not same_figure(one, other)


def test_a_changed_figure_is_new_even_beside_a_stated_one() -> None:
    """8 → 4 H200 for the same 1T model: the record states a plain count the claim does not."""
    assert new_figures({"4", "1t"}, {"8", "1t"}) == ["4"]


def test_a_figure_added_beside_a_stated_one_is_detail_of_the_known_result() -> None:
    assert new_figures({"2.3x", "40%"}, {"2.3x"}) == []


def test_a_figure_of_a_unit_the_record_gives_otherwise_is_new() -> None:
    assert new_figures({"2.3x", "55%"}, {"2.3x", "40%"}) == ["55%"]


def test_with_no_stated_figure_every_missing_one_is_new() -> None:
    assert new_figures({"2.3x", "40%"}, {"7"}) == ["2.3x", "40%"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("评估2022-2023年的考试，并扩展到2022–2024 exams", set()),
        ("2019至2021年间收集", set()),
        ("驱动与插件版本须对齐（jay 9-17 已记，tom 9/18 已记），9月17日、9 月 18 号复测", set()),
        ("采用 ℓ2,0 范数约束投影矩阵", set()),
        ("12,34 与 1,618 条", {"12", "34", "1618"}),
        ("训练数据 3.5 trillion tokens，或 1.2万亿", {"3.5t", "1.2t"}),
        # A multiple or a share is a result whatever its digits; only a bare year (or decade) is a date.
        ("吞吐提升两千倍", {"2000x"}),
        ("a 2000x speedup since 2024, as in the 2020s (Li et al., 2025b)", {"2000x"}),
        # A writer's day before the figure it gave then: 10-05 is no pair of figures.
        ("完成 41% 的任务价值（10-05 为 38%）", {"41%", "38%"}),
        ("命中率 62%（9-16 时为 55%），09-16 起按新口径", {"62%", "55%"}),
    ],
)
def test_spans_of_years_norm_names_and_trillions_read_right(text: str, expected: set[str]) -> None:
    assert substantive_numbers(text) == expected


@pytest.mark.parametrize(
    ("ranged", "each_with_its_unit"),
    [
        ("成功率约 26-30%", "成功率约 26%-30%"),
        ("WER reductions of 19–33%", "WER 降低 19% 至 33%"),
        ("快 2~3 倍", "2x to 3x faster"),
        ("7-8B models", "7B and 8B models"),
        ("latency of 10 to 20 ms", "时延 10 ms 到 20 ms"),
        ("命中率 10-15%", "命中率 10% 至 15%"),
    ],
)
def test_a_range_written_with_one_unit_gives_it_to_both_ends(ranged: str, each_with_its_unit: str) -> None:
    """One writer puts the unit once, another on both ends: one pair of figures."""
    found = substantive_numbers(ranged)
    assert len(found) == 2 and found == substantive_numbers(each_with_its_unit)


def test_a_restated_result_with_one_more_figure_is_known_and_a_changed_count_is_not() -> None:
    known = embedded("a", "", "Kimi K3 的 1T 参数版本在 8 张 H200 上部署，吞吐提升 2.3 倍。", kind=Kind.increment)
    detail = claim_status(known, "Kimi K3 的 1T 参数版本在 8 张 H200 上部署，吞吐提升 2.3 倍，显存降 40%。", True)
    assert detail.known and detail.new_numbers == []
    assert detail.extra_numbers == ["40%"]  # kept known, but the figure is shown, not lost
    changed = claim_status(known, "Kimi K3 的 1T 参数版本在 4 张 H200 上部署，吞吐提升 2.3 倍。", True)
    assert not changed.known and changed.new_numbers == ["4"]


@pytest.mark.parametrize(
    "retold",
    [
        "Ray Serve 前缀感知路由：共享 2k token 系统提示下平均 TTFT 降低 24%（昨天报的是 31%）",
        "Ray Serve 前缀感知路由：共享 2k token 系统提示下平均 TTFT 降低 24%，而不是此前报告的 31%",
        "Ray Serve prefix-aware routing: mean TTFT with a shared 2k system prompt now 24% lower "
        "(down from the 31% reported yesterday)",
        "Ray Serve 前缀感知路由：共享 2k token 系统提示下平均 TTFT 降低 24%（stephen 报的是 31%）",
        "Ray Serve 前缀感知路由：共享 2k token 系统提示下平均 TTFT 从降低 31% 修正为降低 24%",
        "Ray Serve prefix-aware routing: mean TTFT with a shared 2k system prompt falls 24% (was 31%)",
        "Ray Serve prefix-aware routing: mean TTFT with a shared 2k system prompt falls 24%, not 31% as first reported",
        # A follow-up beside the figure it updates (probe 6: "now 47% (v1 said 41%)", "41%（10-05 为 38%）").
        "Ray Serve prefix-aware routing: mean TTFT with a shared 2k system prompt is now 24% lower (v1 said 31%)",
        "Ray Serve 前缀感知路由：共享 2k token 系统提示下平均 TTFT 降低 24%（10-05 为 31%）",
        "Ray Serve 前缀感知路由：共享 2k token 系统提示下平均 TTFT 降低 24%（较 10-05 的 31%）",
        "Ray Serve 前缀感知路由：共享 2k token 系统提示下平均 TTFT 降低 24%（此前 31%）",
        # A correction beside the figure first reported (probe 43: "修正后…67.2（原报 68.4）").
        "Ray Serve 前缀感知路由：修正后共享 2k token 系统提示下平均 TTFT 降低 24%（原报 31%）",
        "Ray Serve 前缀感知路由：共享 2k token 系统提示下平均 TTFT 降低 24%（原报告为 31%）",
        "Ray Serve prefix-aware routing: mean TTFT with a shared 2k system prompt falls 24%, was 31%",
        "Ray Serve prefix-aware routing: mean TTFT with a shared 2k system prompt falls 24% (stephen reported 31%)",
        "Ray Serve 前缀感知路由：共享 2k token 系统提示下平均 TTFT 降幅由 31% 下降到 24%",
        "Ray Serve prefix-aware routing: the mean TTFT cut with a shared 2k system prompt went from 31% to 24%",
        # The old figure told by how it was first given (published, announced, quoted …), not by "reported".
        "Ray Serve prefix-aware routing: mean TTFT with a shared 2k prompt falls 24%, not the 31% first published",
        "Ray Serve prefix-aware routing: mean TTFT with a shared 2k prompt falls 24%, not 31% as originally announced",
        "Ray Serve prefix-aware routing: mean TTFT with a shared 2k system prompt falls 24% (initially quoted as 31%)",
        "Ray Serve prefix-aware routing: the TTFT cut with a shared 2k system prompt is revised to 24% from 31%",
    ],
)
def test_a_figure_given_beside_the_one_it_replaces_is_a_changed_figure(retold: str) -> None:
    """The claim restates the record's 31% only to replace it: 24% is that figure changed,
    not one more detail of a known result."""
    known = embedded(
        "a", "", "Ray Serve 前缀感知路由：共享 2k token 系统提示下平均 TTFT 降低 31%。", kind=Kind.increment
    )
    status = claim_status(known, retold, True)
    assert not status.known and status.new_numbers == ["24%"]


@pytest.mark.parametrize(
    "detail",
    [
        # Another figure in brackets that no writer gave before: a baseline, not a replaced figure.
        "Ray Serve 前缀感知路由：共享 2k token 系统提示下平均 TTFT 降低 31%（轮询为 0%）",
        "Ray Serve prefix-aware routing: mean TTFT with a shared 2k system prompt was 31% lower in tests",
    ],
)
def test_a_restated_figure_beside_no_earlier_one_stays_known(detail: str) -> None:
    known = embedded(
        "a", "", "Ray Serve 前缀感知路由：共享 2k token 系统提示下平均 TTFT 降低 31%。", kind=Kind.increment
    )
    assert claim_status(known, detail, True).known


def test_a_baseline_a_claim_starts_from_is_no_replaced_figure_of_another_quantity() -> None:
    """由 Y 提升到 X replaces the records' Y only when they give it for the claim's quantity:
    a record's 35% memory cut is no success rate the claim raises."""
    known = embedded("a", "", "PlanCritic：显存占用降低 35%，重规划更少。", kind=Kind.increment)
    status = claim_status(known, "PlanCritic：显存占用降低 35%，WebArena 成功率由 35% 提高到 42%", True)
    assert status.known and status.extra_numbers == ["42%"]


def test_a_figure_of_another_size_is_no_change_of_a_stated_one() -> None:
    """A baseline's F1 of 0.28 beside a 1,200-item count the record states: not a changed figure."""
    assert new_figures({"0.71", "0.28"}, {"0.71", "1200"}) == []
    assert new_figures({"0.71", "0.28"}, {"0.71", "0.41"}) == ["0.28"]


def test_chinese_units_read_without_a_boundary_and_after_an_approximation() -> None:
    assert numbers("800万Q&A对，3000多万份网页，12百万帧") == {"8m", "30m", "12m"}


def test_only_whole_counts_that_change_no_stated_count_are_added_detail() -> None:
    assert added_counts(["10k"], {"10k"}, set())  # a dataset's size the record never gave
    assert added_counts(["18", "432"], {"18", "432", "2.3x"}, {"2.3x"})
    assert not added_counts(["35%"], {"35%"}, set())  # a measured result
    assert not added_counts(["0.93"], {"0.93"}, set())  # a score
    assert not added_counts(["4"], {"4"}, {"8"})  # 8 H200 → 4 H200
    assert not added_counts([], set(), set())


@pytest.mark.parametrize(
    ("words", "digits"),
    [
        ("推理速度快一个数量级", "an order of magnitude faster"),
        ("an order of magnitude faster", "10x faster inference"),
        ("训练成本低两个数量级", "a 100x lower training cost"),
        ("显存减半", "halves the memory"),
        ("显存减半", "memory drops by 50%"),
        ("halves the memory", "显存降低50%"),
        ("it can halve the decode latency", "解码延迟降低一半"),
        ("cuts the error rate in half", "the error rate falls by 50%"),
        ("显存降到十分之一", "a 10x smaller footprint"),
        ("仅用十分之一的指令数据", "with only 10% of the instruction data"),
        ("one tenth of the data", "10% of the data"),
        ("识别半数测试图像", "recognises half of the test images"),
        ("调度速度翻倍", "doubling the scheduling speed"),
        ("吞吐提升了一倍", "throughput doubled"),
        ("吞吐翻了两番", "4x the throughput"),
        ("tripled throughput", "吞吐提升3倍"),
        ("成功转化了三分之二的不可行设计", "turns 66.7% of infeasible designs feasible"),
        ("a third of the cost", "成本仅为33%"),
    ],
)
def test_a_figure_in_words_is_stated_by_the_digits_another_writer_uses(words: str, digits: str) -> None:
    """Issue 25: "halves", "an order of magnitude", 十分之一 and 翻倍 read as no number, so a
    record that spelled its figure left the retelling's 2x, 10x or 50% unstated: a "new" claim."""
    spelled, written = substantive_numbers(words), substantive_numbers(digits)
    assert spelled, words
    assert new_figures(written, spelled) == [] and new_figures(spelled, written) == []


@pytest.mark.parametrize(
    ("known", "changed"),
    [
        ("显存减半", "memory drops by 30%"),
        ("速度快一个数量级", "two orders of magnitude faster"),
        ("仅用十分之一的数据", "with only a quarter of the data"),
        ("吞吐翻倍", "tripled throughput"),
    ],
)
def test_a_figure_in_words_that_changes_is_new(known: str, changed: str) -> None:
    assert new_figures(substantive_numbers(changed), substantive_numbers(known))


@pytest.mark.parametrize(
    "text",
    [
        "orders of magnitude faster",  # vague: no single figure
        "快几个数量级，或低1-3个数量级的误差",
        "one to two orders of magnitude cheaper",
        "a doubly robust estimator of the doubling dimension",
        "extracting knowledge triples and triplet losses",
        "half-precision weights on separate halves of the sample, run in half precision",
        "a third modality, the third of four steps, the first quarter of 2025",
        "in the second half of the layers; the other half of the equation",
        "三四分之一",
    ],
)
def test_vague_sizes_ranges_ordinals_and_nouns_state_no_figure(text: str) -> None:
    assert substantive_numbers(text) == set()


def test_a_gain_of_a_few_points_is_a_result_and_a_count_of_key_points_is_not() -> None:
    """ "6 AUC points higher" is the result itself; a lone digit elsewhere is a list marker or a step."""
    assert substantive_numbers("an average increase of 6 AUC points, 3 pp on MMLU, 提升 5 个百分点") == {"6", "3", "5"}
    assert substantive_numbers("the 4 key points and the 3 main points of the paper") == set()


def test_a_count_of_accelerators_written_as_a_multiple_is_a_count_not_a_speed_up() -> None:
    """ "4x H200" read as a 4x speed-up, and "8×H200" as no figure: 8 → 4 GPUs went unseen."""
    assert substantive_numbers("在 4x H200 的集群上") == substantive_numbers("在 4 张 H200 上") == {"4"}
    assert substantive_numbers("8×H200, 16x H100 nodes") == {"8", "16"}
    assert substantive_numbers("a 4x speed-up on 8 H200") == {"4x", "8"}
    known = embedded("a", "", "RouteMax：在 8 张 H200 的集群上，路由后 TTFT 降低 31%", kind=Kind.increment)
    status = claim_status(known, "RouteMax：在 4x H200 的集群上，路由后 TTFT 降低 31%", True)
    assert not status.known and status.new_numbers == ["4"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("With 8 agents in the debate task, prefill compute drops by 62%", {"8", "62%"}),
        ("在 5 个 Agent 的辩论任务上 prefill 计算减少 62%", {"5", "62%"}),
        ("an 8-agent debate served by 4 workers", {"8", "4"}),
        ("3 名用户、2 个实例、6 个智能体", {"3", "2", "6"}),
    ],
)
def test_a_lone_digit_counting_what_runs_side_by_side_is_a_count(text: str, expected: set[str]) -> None:
    """Probe, 6 December: "5 个 Agent" → "8 agents" was known, both digits dropped as list markers."""
    assert substantive_numbers(text) == expected


@pytest.mark.parametrize(
    "text",
    ["stage 1 processes the image", "微调 Gemma 2 模型，在 Argoverse 2 数据集上", "a 3 steps recipe", "1. agents plan",
     "Top-3 agents", "第 3 个 Agent"],
)  # fmt: skip
def test_a_version_a_stage_a_list_marker_or_an_ordinal_before_such_a_word_is_no_count(text: str) -> None:
    assert substantive_numbers(text) == set()


def test_a_changed_count_of_agents_makes_the_claim_new_in_either_language() -> None:
    known = embedded("a", "", "SwarmKV：在 5 个 Agent 的辩论任务上 prefill 计算减少 62%", kind=Kind.increment)
    for claim in ("SwarmKV: with 8 agents in the debate task, prefill compute drops by 62%",
                  "SwarmKV：在 8 个 Agent 的辩论任务上 prefill 计算减少 62%"):  # fmt: skip
        status = claim_status(known, claim, True)
        assert not status.known and status.new_numbers == ["8"], claim
    assert claim_status(known, "SwarmKV：在 5 个 Agent 的辩论任务上 prefill 计算减少 62%", True).known


def test_a_figure_set_against_the_records_for_one_quantity_is_new_though_the_claim_restates_it() -> None:
    """The cosine decision too: "低于官方所说的 35%" restates the record's figure, and the
    rerun's 28% is a second measurement of it, not detail (probe, 6 December)."""
    known = embedded("a", "", "vLLM v0.30：官方 release note 称在 Llama 3.3 70B 上 TTFT 下降 35%", kind=Kind.increment)
    status = claim_status(known, "vLLM v0.30：社区复测 TTFT 只下降 28%，低于官方所说的 35%", True)
    assert not status.known and status.new_numbers == ["28%"]


def test_points_written_as_ge_dian_are_a_result() -> None:
    assert substantive_numbers("AUC 提升 8 个点") == {"8"}


def test_a_rough_figure_is_the_stated_one_rounded_to_one_digit() -> None:
    """ "roughly a tenfold smaller KV footprint" against 10.7x: the writer rounds the stated
    figure, and 10x read as a new one. Without the rough word, 10x stays another figure."""
    assert approximate_figures("roughly a tenfold smaller, 约 3 倍, ~40% less") == {"10x", "3x", "40%"}
    assert unstated({"10x"}, {"10.7x"}, approximate={"10x"}) == set()
    assert unstated({"10x"}, {"10.7x"}) == {"10x"}
    assert unstated({"10x"}, {"14x"}, approximate={"10x"}) == {"10x"}  # rough, but 40% off
    known = embedded("a", "", "TriAttention 把 KV 显存降低 10.7 倍。", kind=Kind.increment)
    assert claim_status(known, "TriAttention 把 KV 显存降低约 10 倍。", True).new_numbers == []
    assert claim_status(known, "TriAttention 把 KV 显存降低 10 倍。", True).new_numbers == ["10x"]


@pytest.mark.parametrize(
    "text",
    [
        "LMCache 0.4 adds a Redis backend",
        "vLLM 0.4 ships chunked prefill",
        "SGLang 0.5 and SGLang v0.5.2",
        "DeepSpeed 0.18, Redis 7.2, PyTorch 2.5",
        "TensorRT-LLM 0.13 supports FP16",  # FP8 is a width: 8bit (test_units)
        "llama.cpp 0.3 adds a server",
        "升级到vLLM 0.4 后",
        "微调Llama 3.2 与 LLaMA 3.1 模型",
    ],
)
def test_a_decimal_after_a_product_name_in_mixed_case_is_its_version(text: str) -> None:
    """ "LMCache 0.4" read as a result figure: a name starting with two capitals (LMCache,
    SGLang) or a small letter (vLLM) was not taken for a name, so a release was news."""
    assert numbers(text) == set()


@pytest.mark.parametrize(
    "text",
    ["CXL 2.0 内存池把 KV 放到远端", "CUDA 12.4 and TLS 1.3", "MCP 1.0 spec, ONNX 1.17, NCCL 2.21"],
)
def test_a_decimal_after_a_standard_spelled_in_capitals_is_its_version(text: str) -> None:
    """ "CXL 2.0" read as a result figure: a standard or runtime named in capitals looked
    like a metric (AUC 0.93), so a claim naming CXL 2.0 where the record said CXL had a
    new number."""
    assert numbers(text) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("TTFT 0.4s, TTFT 0.4", {"400ms", "0.4"}),
        ("AUC 0.93, ECE 0.05", {"0.93", "0.05"}),
        ("BLEU 34.5 and MMLU 0.72", {"34.5", "0.72"}),
        ("top-1 0.81, Top-1 0.82", {"0.81", "0.82"}),
        ("F1 0.9 on H100 80GB", {"0.9", "80gb"}),
        ("mAP 0.45, mIoU 0.78, nDCG 0.5", {"0.45", "0.78", "0.5"}),
        ("BERTScore 0.91, SacreBLEU 27.3, ROUGE-L 0.41", {"0.91", "27.3", "0.41"}),
        ("gFID 1.50, sFID 1.92, COMETkiwi 71.84, SoTA 3.9", {"1.5", "1.92", "71.84", "3.9"}),
        ("pass@1 0.62, GFLOPs 1.5", {"0.62", "1.5"}),
        ("GPT-4o 0.88, Qwen2.5 0.71", {"0.88", "0.71"}),
        # Figures, not versions; an accuracy and a fraction "of the runs" are shares (``shares``): 93%, 40%.
        ("Accuracy 0.93; vLLM. 0.4 of the runs", {"93%", "40%"}),
    ],
)
def test_a_decimal_after_a_metric_in_capitals_or_a_name_with_digits_is_a_figure(text: str, expected: set[str]) -> None:
    """A metric is named in capitals (or small letters, or one of a few mixed-case spellings),
    a product in mixed case: widening the versions to vLLM and SGLang kept these figures."""
    assert numbers(text) == expected


def test_a_product_release_named_in_a_claim_is_no_new_number() -> None:
    known = embedded(
        "a", "", "LMCache 把 KV Cache 放到 CPU 内存或远端存储，以 connector 接入 vLLM", kind=Kind.increment
    )
    status = claim_status(known, "LMCache 0.4 把 KV Cache 放到 CPU 内存或远端存储，以 connector 接入 vLLM", False)
    assert status.new_numbers == []


@pytest.mark.parametrize(
    ("claimed", "stated"),
    [
        ("1.22x", "22%"),  # 吞吐是原来的 1.22 倍 against 提高 22%
        ("50%", "1.5x"),  # 50% faster against 1.5倍
        ("150%", "1.5x"),  # 达到原来的 150%
        ("0.5x", "50%"),
    ],
)
def test_one_multiple_spelt_as_a_percentage_is_stated(claimed: str, stated: str) -> None:
    """Probe, 5 December: "prefill 吞吐是原来的 1.22 倍" against "提高 22%" read 1.22x as new,
    and "50% faster" against 1.5倍 made an UPDATE of a restatement."""
    assert unstated({claimed}, {stated}) == set()


@pytest.mark.parametrize(("claimed", "stated"), [("100%", "2x"), ("2x", "100%"), ("60%", "1.5x"), ("1.3x", "22%")])
def test_other_multiples_and_a_whole_hundred_percent_are_not_one_figure(claimed: str, stated: str) -> None:
    assert unstated({claimed}, {stated}) == {claimed}
