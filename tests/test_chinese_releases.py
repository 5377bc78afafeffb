"""A release told in Chinese is no figure (``text/chinese_releases.py``): "自 2.4 起弃用…在 3.0 中移除"
retells "deprecated since 2.4, removed in 3.0", which English already reads as two releases, so the
retelling has no new numbers. A figure a change starts from keeps its digits."""

from __future__ import annotations

import pytest

from kbsearch.text.quantities import new_figures
from kbsearch.text.textsim import substantive_numbers


@pytest.mark.parametrize(
    "text",
    [
        "旧的同步调度器自 2.4 起弃用，在 3.0 中移除",
        "流水线接口自 1.8 版本起不再推荐",
        "异步写盘从 0.7 开始默认启用",
        "从 5.2 起 ZeRO 配置改为必填",
        "张量并行后端于 1.3 引入",
        "旧的梯度压缩选项 3.0 中移除",
        "该参数在 2.1 里被标记为废弃",
    ],
)
def test_a_release_a_change_is_tied_to_is_no_figure(text: str) -> None:
    assert substantive_numbers(text) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("学习率从 0.3 开始余弦衰减", {"0.3"}),
        ("命中率在 0.8 时趋于饱和", {"80%"}),
        ("在 0.6 的阈值下召回最高", {"0.6"}),
        ("温度自 0.9 降至 0.2", {"0.9", "0.2"}),
    ],
)
def test_a_figure_a_change_starts_from_keeps_its_digits(text: str, expected: set[str]) -> None:
    assert substantive_numbers(text) == expected


def test_a_chinese_retelling_of_a_deprecation_adds_no_figure() -> None:
    record = substantive_numbers("The old sync scheduler, deprecated since 2.4, is removed in 3.0")
    claim = substantive_numbers("旧的同步调度器自 2.4 起弃用，在 3.0 中移除")
    assert new_figures(claim, record) == []
