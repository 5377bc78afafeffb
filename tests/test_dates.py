"""Issue 25, probe 35: a date is a figure of its own kind. A claim that moves a date, or gives
one its records never give, is new; the same date in another spelling is not; an earlier day's
anchor note and a bare quantization tag are no dates."""

from __future__ import annotations

import datetime as dt

import pytest
from test_dedupe_rules import embedded

from kbsearch.dedupe.claim_dates import dated
from kbsearch.dedupe.results import ClaimStatus
from kbsearch.records import Kind
from kbsearch.text.dates import dates, new_dates


@pytest.mark.parametrize(
    ("text", "spelled"),
    [
        ("GA 日期由 2026年10月15日 推迟至 2026年11月3日", ["2026-10-15", "2026-11-03"]),
        ("pushed GA from 2026-10-15 to 2026/11/3", ["2026-10-15", "2026-11-03"]),
        ("ships October 15, 2026, or on 15 Oct 2026", ["2026-10-15", "2026-10-15"]),
        ("beta in Nov 2026, GA in 2026年12月", ["2026-11", "2026-12"]),
        ("Q4 2026, 2026 Q4, 2026年第四季度 and 四季度", ["2026-Q4", "2026-Q4", "2026-Q4", "?-Q4"]),
        ("lands on March 4", ["?-03-04"]),
        ("Q4 GGUF 权重 4.3 GB", []),  # a quantization, not a quarter
        ("Harrow（9-16锚定）的 2026 年度报告；见 11-03", []),  # anchors, a bare year, a month-day with a dash
        ("Say 5 things, may 3 users", []),  # a month is capitalized
    ],
)
def test_dates_are_read_in_every_spelling(text: str, spelled: list[str]) -> None:
    assert [d.spelled() for d in dates(text)] == spelled


@pytest.mark.parametrize(
    ("claim", "known", "new"),
    [
        ("GA 日期由 2026年10月15日 推迟至 2026年11月3日", ["GA planned for 2026-10-15"], ["2026-11-03"]),
        ("The patch went out on 2026-09-21", ["The outage began on 2026-09-20"], ["2026-09-21"]),
        ("提交窗口截至 2026年6月1日", ["Submissions close 2026-06-15"], ["2026-06-01"]),
        ("GA is still planned for October 15, 2026", ["GA 定于 2026年10月15日"], []),  # the same day
        ("GA in Q4 2026", ["GA planned for 2026-10-15"], []),  # the record's date, written rounder
        ("GA on October 15", ["GA planned for 2026-10-15"], []),  # no year: that day of any year
        ("Throughput rose 30% in the 9-16锚定 build", ["Throughput rose 30%"], []),
    ],
)
def test_a_date_the_records_never_give_is_new(claim: str, known: list[str], new: list[str]) -> None:
    assert new_dates(claim, known) == new


def test_the_records_own_day_is_a_date_they_give() -> None:
    assert new_dates("Released on 2026-09-15", ["Released"], [dt.date(2026, 9, 15)]) == []


def _known(claim: str) -> ClaimStatus:
    return ClaimStatus(text=claim, known=True, score=0.9, threshold=0.5, extra_numbers=["4"])


def test_a_known_claim_with_a_date_its_records_lack_is_new() -> None:
    record = embedded(
        "kai/d1#2", "Orbit Serve 3.0 GA", "Orbit Serve 3.0 计划 2026-10-15 正式发布", kind=Kind.increment,
        date=dt.date(2026, 9, 30),
    )  # fmt: skip
    moved = dated(_known("Orbit Serve 3.0 GA moved from 2026-10-15 to 2026-11-03"), "", [record])
    assert moved.known  # the claim's text is what is read, not the status's
    claim = "Orbit Serve 3.0 GA moved from 2026-10-15 to 2026-11-03"
    moved = dated(_known(claim), claim, [record])
    assert not moved.known and moved.new_numbers == ["2026-11-03"] and moved.extra_numbers == []
    kept = "Orbit Serve 3.0 still goes GA on October 15, 2026"
    assert dated(_known(kept), kept, [record]).known
    written = "Orbit Serve 3.0 GA plan noted on 2026-09-30"  # the record's own day
    assert dated(_known(written), written, [record]).known


@pytest.mark.parametrize(
    ("claim", "known", "new"),
    [
        # A year and a month's two digits is that month, as "Nov 2026" and 2026年11月 are (probe 46:
        # "Launched … in November 2026" against a doc's "2026-11 推出")
        ("Kiln Sign went live in March 2026", ["Kiln Sign 于 2026-03 上线"], []),
        ("Kiln Sign 于 2026 年 3 月上线", ["Kiln Sign went live 2026/03"], []),
        ("Kiln Sign went live in April 2026", ["Kiln Sign 于 2026-03 上线"], ["2026-04"]),  # a changed month
        ("Kiln Sign's 2026-03 launch", ["Kiln Sign launched on March 9, 2026"], []),  # the day, written rounder
        ("The 2019-20 season", ["The season"], []),  # no month's digits: a span of years
    ],
)
def test_a_year_and_month_in_digits_is_a_month(claim: str, known: list[str], new: list[str]) -> None:
    assert new_dates(claim, known) == new
