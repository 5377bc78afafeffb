"""Units and quantisation widths written in either language read as one figure, and a
writer's unpadded month-day before a Chinese word is a date (probe 8, #7)."""

from __future__ import annotations

import pytest
from test_dedupe_rules import claim_status, embedded

from kbsearch.records import Kind
from kbsearch.text.hardware import accelerators, on_other_hardware
from kbsearch.text.quantities import new_figures
from kbsearch.text.textsim import numbers, substantive_numbers


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("p99 延迟是 38 毫秒", "p99 latency is 38 ms"),
        ("首 token 延迟一度达到 2.6 秒", "TTFT peaked at 2.6s"),
        ("处理 20 秒钟的音频窗口", "20-second audio windows"),
        ("延迟在 12-18 毫秒之间", "latency of 12-18ms"),
        ("冷层量化到 INT2", "the cold tier is quantised to 2-bit integers"),
        ("权重 W4A16", "weights at 4 bits"),
        ("4位量化模型", "a 4-bit quantised model"),
        ("3-4比特量化", "3 to 4-bit INT3 and INT4"),
        ("视觉编码器压缩至1.58位", "a 1.58-bit vision encoder"),
    ],
)
def test_a_unit_or_width_in_either_spelling_is_one_figure(one: str, other: str) -> None:
    assert numbers(one) == numbers(other) != set()


def test_a_changed_width_is_a_changed_figure() -> None:
    assert numbers("FP8 KV cache") == {"8bit"}
    assert new_figures(numbers("冷层改为 INT4"), numbers("cold tier at 2-bit, hot tier at FP16")) == ["4bit"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("FP16 基线", set()),  # a baseline's precision, not a quantised width
        ("16-bit floats", {"16"}),
        ("3 位专家评审", {"3"}),  # 位 counts people outside a text about quantisation
        ("4-bitwise ops", {"4"}),
    ],
)
def test_wide_precisions_and_other_words_keep_their_reading(text: str, expected: set[str]) -> None:
    assert numbers(text) == expected


@pytest.mark.parametrize(
    "text", ["9-29 升级到 v2.1 后命中率下降", "9-29 晚发现", "10-4 evening rollout", "9-29 14:00 起"]
)
def test_an_unpadded_month_day_before_a_chinese_word_or_a_time_is_a_date(text: str) -> None:
    assert not numbers(text) & {"9", "29", "10", "4"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("加速 3-5 倍", {"3x", "5x"}),
        ("提升 10-15%", {"10%", "15%"}),
        ("仅需 2-4 次采样", {"2", "4"}),
        ("4-16 岁儿童", {"4", "16"}),
        ("batch 8-16 下", {"8", "16"}),
        ("延迟 3-5 之间", {"3", "5"}),
    ],
)
def test_a_range_before_what_it_counts_or_measures_stays_two_numbers(text: str, expected: set[str]) -> None:
    assert numbers(text) == expected


def test_a_retelling_in_chinese_units_restates_the_english_figure() -> None:
    english = "EAGLE-3 tuning on the H100 fleet: p99 inter-token latency stayed at 38 ms."
    known = embedded("a", "", english, Kind.increment)
    status = claim_status(known, "EAGLE-3 调参：H100 集群 p99 token 间延迟前后都是 38 毫秒。", True)
    assert status.new_numbers == [] and substantive_numbers("38 毫秒") == {"38ms"}


def test_a_figure_measured_on_other_hardware_is_new() -> None:
    """Probe 8, #3: "在 H200 上 decode 加速 2.4 倍" was known from a record's "在 H100 上 … 2.4 倍"."""
    known = embedded("a", "", "BranchDraft 用树状草稿替代单链草稿，在 H100 上 decode 加速 2.4 倍。", Kind.increment)
    moved = claim_status(known, "BranchDraft 新硬件结果：在 H200 上 decode 加速 2.4 倍。", True)
    assert not moved.known and moved.new_numbers == ["2.4x"]
    assert claim_status(known, "BranchDraft 在 H100 上 decode 加速 2.4 倍。", True).known
    assert claim_status(known, "BranchDraft 用树状草稿，decode 加速 2.4 倍。", True).known  # no hardware named


def test_a_record_naming_no_accelerator_for_the_figure_still_states_it() -> None:
    assert on_other_hardware("在 H200 上 decode 加速 2.4 倍", ["decode 加速 2.4 倍。H100 上另测了延迟 30ms。"]) == set()
    assert on_other_hardware("8 张 H200 上吞吐 2.4 倍", ["8 张 H100 上吞吐 2.4 倍"]) == {"2.4x", "8"}
    assert accelerators("8x H100s, RTX 4090, MI300X and A100-80GB; T5") == {"H100", "RTX4090", "MI300X", "A100"}


def test_a_width_is_weighed_only_against_records_stating_a_width() -> None:
    """Probe 48: "int4 量化后模型内存占用 0.6GB" listed ``4bit`` among its new result numbers
    against a record giving no precision at all: there the width labels what the memory is
    measured in. Against a record stating a width it is still a figure, same or changed."""
    claim = numbers("部署：int8 量化后显存占用 1.4GB")
    assert claim == {"8bit", "1.4gb"}
    assert new_figures(claim, numbers("a 2.7B dictation model with 90 ms latency")) == ["1.4gb"]
    assert new_figures(claim, numbers("显存占用 1.4GB，离线运行")) == []  # the memory is stated: known
    assert new_figures(claim, numbers("FP16 weights, a 4-bit build at 1.4GB")) == ["8bit"]  # a changed width
    assert new_figures(claim, numbers("an 8-bit build needs 1.4GB")) == []


def test_the_claim_decision_reads_a_width_as_a_label_where_the_record_gives_none() -> None:
    known = embedded("a", "", "Wrenvoice 语音助手在手机上离线运行。", Kind.increment)
    label = claim_status(known, "Wrenvoice 语音助手以 int8 量化在手机上离线运行。", True)
    assert label.known and label.new_numbers == []
    widths = embedded("b", "", "Wrenvoice 语音助手以 4-bit 量化在手机上离线运行。", Kind.increment)
    changed = claim_status(widths, "Wrenvoice 语音助手以 int8 量化在手机上离线运行。", True)
    assert not changed.known and changed.new_numbers == ["8bit"]
