"""Probe 30: prices and discounts are figures (``text/money.py``).

"Vega-Pro input price is now $3 per million tokens (was $5)" against a record's "$5" was
DUPLICATE: a lone digit read as a list marker, so the price cut had no figure. "$3.00 (was
$5.00)" against "$5" gave 5.00 as new. "打六折" read as no figure at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbsearch.text.textsim import numbers, substantive_numbers

DAY1 = """ai-industry · E1 预消化简报(2026-12-10)
执行： Jay
一、最重要的 1 条增量
增量 1【定价 · §2】🟢 Lumen sets Lumen-Max API prices ★★
来源： Lumen pricing page（2026-12-10）
要点：
- Lumen-Max input price is $5 per million tokens
可信度： 高
Jay · 2026-12-10 20:30
"""


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        ("input price is now $3 per million tokens (was $5)", {"3", "5"}),
        ("US$3, ¥4, €2 and £5", {"2", "3", "4", "5"}),
        ("输出 4元，输入 3 美元", {"3", "4"}),
        ("5 dollars or 3 USD", {"3", "5"}),
        ("$3/M tokens", {"3"}),
        ("每百万 token 2 元", {"2"}),
        ("now $2, down from $2.50", {"2", "2.5"}),
        ("8 H200 GPUs over 3 steps", {"8"}),  # a step still no figure
        ("see 3 steps and 2 models", set()),
        (r"up to $4\times$ faster with $5$ seeds and $1/\epsilon$ rounds, $\alpha <$ 2", set()),  # LaTeX
        ("五折交叉验证", set()),  # five-fold cross-validation, no discount
    ],
)
def test_a_lone_digit_written_as_a_price_is_a_figure(text: str, figures: set[str]) -> None:
    assert substantive_numbers(text) == figures


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        ("$3.00 (was $5.00)", {"3", "5"}),
        ("input price is $5", {"5"}),
        ("gFID 2.50 and 2.5x, 10.0x faster", {"2.5", "2.5x", "10x"}),
        ("accuracy 1.0", {"1"}),  # a lone digit with a decimal's zeros stays a figure
        ("Apache 2.0 and 2 models", set()),  # a version stays a label
    ],
)
def test_a_decimals_trailing_zeros_make_no_new_figure(text: str, figures: set[str]) -> None:
    assert substantive_numbers(text) == figures


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        ("Nova-Flash 输入价格对所有客户打六折", {"40%"}),
        ("打四折", {"60%"}),
        ("七五折", {"25%"}),
        ("6折", {"40%"}),
        ("6.5折", {"35%"}),
        ("九五折", {"5%"}),
        ("一波三折，三折叠屏，折扣和折算", set()),
    ],
)
def test_a_discount_reads_as_the_percentage_off(text: str, figures: set[str]) -> None:
    assert numbers(text) == figures


def test_six_tenths_paid_is_forty_percent_off_and_four_tenths_is_not() -> None:
    assert numbers("打六折") == numbers("cut by 40%") == numbers("下调 40%") == numbers("40% off")
    assert numbers("打四折") != numbers("cut by 40%")


def test_a_price_cut_is_an_update_with_its_new_price(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    index = str(tmp_path / "idx")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    day1 = tmp_path / "a" / "2026-12-10-jay-ai-industry-e1prep.md"
    day2 = tmp_path / "b" / "2026-12-11-jay-ai-industry-e1prep.md"
    day1.write_text(DAY1, encoding="utf-8")
    day2.write_text(
        DAY1.replace("2026-12-10", "2026-12-11")
        .replace("sets", "cuts")
        .replace("is $5 per million tokens", "is now $3 per million tokens (was $5)"),
        encoding="utf-8",
    )
    assert cli("ingest", str(day1), "--index", index)[0] == 0
    _, out, _ = cli("check", str(day2), "--index", index)
    assert out.startswith("UPDATE") and "(new numbers: 3)" in out, out
