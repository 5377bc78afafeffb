"""Figures in the forms model cards write them read as one figure (probe 34, group C): a
trillion as T or 万亿, a context in binary thousands (32K is 32,768), a doubling in words."""

from __future__ import annotations

import pytest
from test_dedupe_rules import claim_status, embedded

from kbsearch.records import Kind
from kbsearch.text.quantities import same_figure
from kbsearch.text.textsim import numbers


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("预训练用了 9 万亿 tokens", "pretrained on 9T tokens"),
        ("a 2.5T-token mix", "2.5 trillion tokens"),
        ("1T 总参数的 MoE", "a MoE with 1 trillion parameters"),
        ("上下文扩大一倍", "the context window doubled"),
        ("解码快一倍", "decoding is twice as fast"),
        ("吞吐高出一倍", "throughput is 2x"),
    ],
)
def test_a_model_card_figure_in_either_spelling_is_one_figure(one: str, other: str) -> None:
    assert numbers(one) == numbers(other) != set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("decodes at 60 t/s on one card", {"60"}),  # tokens per second, no trillion
        ("served on T4 GPUs", set()),
        ("a 2TB NVMe disk", {"2tb"}),
        ("是原来的一倍", {"1x"}),  # 一倍 after no word of growth stays as written
    ],
)
def test_other_letters_and_words_keep_their_reading(text: str, expected: set[str]) -> None:
    assert numbers(text) == expected


@pytest.mark.parametrize(
    ("rounded", "exact", "same"),
    [
        ("32k", "32768", True),
        ("128k", "131072", True),
        ("8k", "8192", True),
        ("1m", "1048576", True),
        ("128k", "131000", False),  # 128K is 131,000 in no reading
        ("128k", "131k", False),
        ("32k", "32760", False),  # exactly, not roughly
    ],
)
def test_a_count_in_k_or_m_is_also_its_binary_value(rounded: str, exact: str, same: bool) -> None:
    assert same_figure(rounded, exact) is same and same_figure(exact, rounded) is same


def test_a_card_retold_in_other_units_restates_it() -> None:
    card = "Brevik-3B: 3B parameters, trained on 6T tokens, 64K context, Apache 2.0."
    known = embedded("a", "", card, Kind.increment)
    retold = claim_status(known, "Brevik-3B 训练数据 6 万亿 tokens，上下文 65,536 tokens", True)
    assert retold.known and retold.new_numbers == []
    longer = claim_status(known, "Brevik-3B 训练数据 6 万亿 tokens，上下文 131,072 tokens", True)
    assert not longer.known and longer.new_numbers == ["131072"]


def test_a_context_grown_from_the_cards_figure_is_new() -> None:
    """With 32K restating the card's 32,768, the 32K the claim grows from must read as the figure it changes."""
    card = "Brevik-3B 模型卡：30 亿参数，6 万亿 tokens 预训练，上下文 32,768 tokens。"
    known = embedded("a", "", card, Kind.increment)
    grown = claim_status(known, "v2 把上下文从 32K 扩到 64K（65,536 tokens）", True)
    assert not grown.known and "64k" in grown.new_numbers
