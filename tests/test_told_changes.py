"""Issue 25, probe 35: a claim that moves a figure its records state to another one tells a new
figure ("raised from 2% to 4%" against a record's 2%), in either language; a figure kept ("still
4%") or given beside a known one (a breakdown) is no change."""

from __future__ import annotations

import pytest
from test_dedupe_rules import claim_status, embedded

from kbsearch.records import Kind
from kbsearch.text.quantities import new_figures
from kbsearch.text.told_changes import moved_from, told_changes


@pytest.mark.parametrize(
    ("claim", "stated", "start"),
    [
        ("The board lifted the per-request token cap for free users from 8k to 16k", {"8k"}, {"8k"}),
        ("The vendor cut the list price of the H20 card from $12,000 to $9,500", {"12k"}, {"12k"}),
        ("默认并发上限由 256 提高到 512", {"256"}, {"256"}),
        ("平台把单次调用费用从 1200 万美元下调至 900 万美元", {"12m"}, {"12m"}),
        ("Prefill chunk size 2,048 → 4,096 tokens in v0.9", {"2048"}, {"2048"}),
        ("Cache hit rate now 71%, up from 64%", {"64%"}, set()),  # "up from": a replaced figure already
        # A unit after the figure is its unit, as the records' figures are read; a noun may stand
        # between 由 and the figure ("the draft's 30 days")
        ("申诉受理期限由征求意见稿的 30 天缩短为 21 天", {"30d"}, {"30d"}),
        ("The log retention window was cut from 90 days to 30 days", {"90d"}, {"90d"}),
        ("默认快照间隔由原来的 6 小时调整为 2 小时", {"6h"}, {"6h"}),
        # A key point's label, then "from A to B" with no verb: the labelled quantity moved (probe 37)
        ("- Contract value: from $2.4B to $3.1B", {"2.4b"}, {"2.4b"}),
        ("- Headcount: from 1,200 to 950 after the cuts", {"1.2k"}, {"1.2k"}),
    ],
)
def test_the_start_of_a_change_the_records_state_is_what_the_claim_moves(
    claim: str, stated: set[str], start: set[str]
) -> None:
    assert moved_from(claim, stated) == start


@pytest.mark.parametrize(
    ("claim", "stated"),
    [
        ("The token cap stays at 8k for free users", {"8k"}),  # kept, not moved
        ("The cap is 2% of turnover, 4% for repeat offenders", {"2%"}),  # a breakdown beside it
        ("The family ships models from 7B to 70B", {"7b"}),  # a range, no word of change
        ("Model sizes range from 7B to 70B", {"7b"}),  # no label right before "from": a range
        ("Raised the cap from 8k to 16k", {"8k", "16k"}),  # the records state the end too
        ("Raised the cap from 8k to 16k", set()),  # nor the start: both figures are new anyway
    ],
)
def test_no_change_of_a_stated_figure_moves_nothing(claim: str, stated: set[str]) -> None:
    assert moved_from(claim, stated) == set()


def test_a_change_is_read_between_its_two_ends() -> None:
    assert told_changes("raised the fee for late filings from 3% to 5% of revenue") == [("3%", "5% of revenue")]
    assert told_changes("上限由 4,800 TPP 下调至 3,600 TPP") == [("4,800 TPP", "3,600 TPP")]


def test_the_end_of_a_change_is_a_changed_figure_not_detail() -> None:
    claim = "默认并发上限由 256 提高到 512"
    assert new_figures({"256", "512"}, {"256"}) == []  # without the change read: detail of the 256
    assert new_figures({"256", "512"}, {"256"}, moved_from(claim, {"256"})) == ["512"]


RECORD = "Orbit Serve 的默认并发上限为 256 个请求，超出部分排队"


@pytest.mark.parametrize(
    "claim",
    [
        "Orbit Serve 把默认并发上限由 256 个请求提高到 512 个请求",
        "Orbit Serve raised its default concurrency limit from 256 to 512 requests",
    ],
)
def test_a_stated_figure_moved_to_another_makes_the_claim_new(claim: str) -> None:
    known = embedded("kai", "Orbit Serve 默认并发上限", RECORD, kind=Kind.increment)
    status = claim_status(known, claim, True)
    assert not status.known and status.new_numbers == ["512"]


def test_a_figure_kept_is_known() -> None:
    known = embedded("kai", "Orbit Serve 默认并发上限", RECORD, kind=Kind.increment)
    status = claim_status(known, "Orbit Serve 的默认并发上限仍为 256 个请求", True)
    assert status.known and status.new_numbers == []


@pytest.mark.parametrize(
    ("claim", "stated", "start"),
    [
        # The unit written once, after the end, is the start's too (probe 45: "from 25 to 14
        # minutes" against a record's "约 25 分钟")
        ("The nightly rebuild dropped from 40 to 22 minutes", {"40min"}, {"40min"}),
        ("The eviction timeout went from 30 to 45 seconds", {"30s"}, {"30s"}),
        ("冷启动时间从 12 缩短到 7 秒", {"12s"}, {"12s"}),
        # A start the records state bare keeps its bare reading; both ends bare stay bare
        ("The nightly rebuild dropped from 40 to 22 minutes", {"40"}, {"40"}),
        ("The queue depth went from 40 to 22", {"40"}, {"40"}),
        # Both ends stated: no change the records lack
        ("The nightly rebuild dropped from 40 to 22 minutes", {"40min", "22min"}, set()),
    ],
)
def test_a_start_written_bare_takes_the_unit_of_the_end(claim: str, stated: set[str], start: set[str]) -> None:
    assert moved_from(claim, stated) == start


def test_a_change_with_its_unit_after_the_end_makes_the_claim_new() -> None:
    known = embedded("kai", "Kiln 夜间构建", "Kiln 的夜间全量构建约 40 分钟，失败时自动重试一次", kind=Kind.increment)
    status = claim_status(known, "Kiln's nightly full rebuild dropped from 40 to 22 minutes", True)
    assert not status.known and status.new_numbers == ["22min"]
