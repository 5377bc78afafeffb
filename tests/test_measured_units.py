"""A duration, power, energy or size is one figure in whichever unit or prefix it is written,
and a day written with its month or after words that date it is no figure (probe 29: S4-4's
"0.132 MW" against 132 kW, S3-5's "48 hours" against "2 天", S2-1's "week-of-10-26")."""

from __future__ import annotations

from decimal import Decimal

import pytest
from test_dedupe_rules import claim_status, embedded

from kbsearch.records import Kind
from kbsearch.text.quantities import could_be_changed, new_figures, same_figure, unstated
from kbsearch.text.textsim import numbers, substantive_numbers
from kbsearch.text.units import measured


@pytest.mark.parametrize(
    ("one", "other", "spelled"),
    [
        ("a loaded NVL72 rack draws about 0.132 MW", "整柜满载约 132 kW", "132kw"),
        ("5 兆瓦的机房", "a 5000 kW hall", "5mw"),
        ("300 千瓦时", "0.3 MWh", "300kwh"),
        ("it went unnoticed for 48 hours", "问题持续 2 天才被发现", "2d"),
        ("持续 48 小时", "for 2 days", "2d"),
        ("warm-up takes 0.75 h", "预热 45 分钟", "45min"),
        ("每 1 分钟检查一次", "checked every 60 s", "1min"),
        ("2 周", "14 days", "2wk"),
        ("1500 ms", "1.5 秒", "1.5s"),
        ("1200 GB/s aggregate", "聚合写入 1.2 TB/s", "1.2tb"),
        ("1800小时语音", "1.8k hours of speech", "75d"),
    ],
)
def test_one_quantity_in_two_units_is_one_figure(one: str, other: str, spelled: str) -> None:
    assert substantive_numbers(one) == substantive_numbers(other) == {spelled}


@pytest.mark.parametrize(
    "text",
    [
        "the week-of-10-26 median spot price",
        "GridMarket public price board (week of 10-26)",
        "prices as of 11/3, in dollars",
        "a trial conducted on August 20, 2024",
        "the GPT-4o release of 29 May",
        "held Oct. 26th",
    ],
)
def test_a_day_with_its_month_or_after_dating_words_is_no_figure(text: str) -> None:
    assert substantive_numbers(text) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8 H200 GPUs", {"8"}),  # hours are a small h with nothing after it
        ("成立 3 周年", {"3"}),
        ("a 3D scene", {"3"}),
        ("3-5 倍", {"3x", "5x"}),
        ("on 2-4 GPUs", {"2", "4"}),  # a range, not a day: no word dates it
        ("10 mW", {"10"}),  # a milliwatt is no megawatt
        ("2-3 hours", {"2h", "3h"}),
    ],
)
def test_what_is_no_measure_or_date_reads_as_before(text: str, expected: set[str]) -> None:
    assert numbers(text) == expected


def test_a_measure_compares_across_its_units() -> None:
    assert same_figure("130kw", "132kw") and not unstated(numbers("about 0.13 MW"), numbers("132 kW"))
    assert could_be_changed("45min", "1h") and could_be_changed("2d", "36h")
    assert measured(Decimal("83.52"), "h") == "3.48d" and measured(Decimal("0.4"), "s") == "400ms"
    assert measured(Decimal("100"), "h") == "100h"  # 4.1666 days has no short spelling
    assert measured(Decimal("3"), "") is None


def test_a_changed_measure_stays_a_changed_figure() -> None:
    """Guards: another count of accelerators, another duration, another power are news."""
    assert new_figures(substantive_numbers("runs on 4 H200"), numbers("runs on 8 H200")) == ["4"]
    assert new_figures(substantive_numbers("restart takes 5 h"), numbers("restart takes 3 h")) == ["5h"]
    assert new_figures(substantive_numbers("rack draws 0.2 MW"), numbers("rack draws 132 kW")) == ["200kw"]
    assert could_be_changed("200kw", "132kw")


def test_a_retelling_in_other_units_restates_the_record() -> None:
    """S4-4 and S3-5 of probe 29, through the claim gate with the fake encoder."""
    power = embedded("a", "", "GB200 NVL72 整柜功耗 132 kW，Helios DC 液冷 PUE 1.15。", Kind.increment)
    status = claim_status(power, "GB200 NVL72 racks draw 0.132 MW each; Helios DC liquid cooling at PUE 1.15.", True)
    assert status.new_numbers == []
    outage = embedded("b", "", "Tessera IB 自适应路由配置错误，all-reduce 带宽下降 30% 持续 2 天。", Kind.increment)
    status = claim_status(outage, "Tessera IB adaptive-routing misconfiguration cut all-reduce 30% for 48 hours.", True)
    assert status.new_numbers == []
    moved = claim_status(power, "GB200 NVL72 racks draw 0.2 MW each; Helios DC liquid cooling at PUE 1.15.", True)
    assert moved.new_numbers == ["200kw"]


def test_a_dated_week_is_no_new_figure() -> None:
    """S2-1 of probe 29: "week-of-10-26" against "10-26 当周"."""
    price = embedded(
        "c", "", "10-26 当周 H100 SXM 现货中位价 2.10 美元/H100·小时，最低成交价 1.72 美元。", Kind.increment
    )
    status = claim_status(
        price, "The week-of-10-26 median spot price for H100 SXM was $2.10/GPU-hr, lowest fill $1.72.", True
    )
    assert status.new_numbers == []
    assert claim_status(price, "GridMarket: the H100 SXM spot price for the week-of-10-26.", True).new_numbers == []
