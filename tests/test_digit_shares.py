"""A share written as a fraction in digits is the share in words (``text/digit_shares.py``): "只需
基线的 1/8" is 八分之一, the 8x cut another writer gives as "8 times cheaper" or "降低 8 倍".
"N times less" stays Nx, as "N times faster" and 提速 N 倍 do."""

from __future__ import annotations

import pytest

from kbsearch.text.quantities import new_figures
from kbsearch.text.textsim import numbers, substantive_numbers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("蒸馏后的模型显存只需教师模型的 1/8", {"8x", "12.5%"}),
        ("索引体积压缩至 1/5，召回几乎不变", {"5x", "20%"}),
        ("The sparse kernel needs 1/8 of the dense memory", {"8x", "12.5%"}),
        ("Serving cost drops to 1/5 with the cache", {"5x", "20%"}),
        ("About 3/4 of the queries hit the cache", {"75%"}),
    ],
)
def test_a_fraction_given_as_a_share_is_read_as_the_share(text: str, expected: set[str]) -> None:
    assert numbers(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Pretrained on Sentinel-1/2 time series", {"2"}),
        ("The regret is O(T^{2/3})", {"2", "3"}),
        ("achieves 1/4-MMS allocations", {"1", "4"}),
        ("The update shipped on 1/12 to all users", {"1", "12"}),  # a date, whatever it is read as
        ("在 12/15 个数据集上显著", {"12", "15"}),
    ],
)
def test_a_fraction_that_is_no_share_keeps_its_digits(text: str, expected: set[str]) -> None:
    assert numbers(text) == expected


@pytest.mark.parametrize(
    "english",
    ["Distillation makes serving 8 times cheaper", "Serving is 8x less costly after distillation"],
)
def test_n_times_less_is_one_part_of_n(english: str) -> None:
    """Either way round: "8 times cheaper" against "只需 1/8", and back."""
    chinese = "蒸馏后推理成本只有原来的 1/8"
    assert new_figures(substantive_numbers(english), substantive_numbers(chinese)) == []
    assert new_figures(substantive_numbers(chinese), substantive_numbers(english)) == []


def test_n_times_faster_stays_a_speed_up() -> None:
    """A speed-up: "3x faster" and 提速 3 倍 are one figure, and no share of anything."""
    assert numbers("Decoding is 3x faster") == numbers("解码提速 3 倍") == {"3x"}
