"""A date written in Chinese reads the same spaced or not (issue 25): "2026 年 11 月" is
2026年11月, November 2026 and 2026-11, and leaves no figure 11 or 2026 behind, so a key point
retelling a record's month is not new for a number it never had. A month alone (11 月, 12月初)
is a month of no year. Figures beside a date, and a duration in years and months, stay
figures. The fixtures are written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import check_json, ingest_rows
from support.files import write_jsonl

from kbsearch.text.dates import dates, new_dates
from kbsearch.text.quantities import replaced_figures
from kbsearch.text.textsim import numbers, substantive_numbers


def _keys(text: str) -> list[str]:
    return [d.spelled() for d in dates(text)]


@pytest.mark.parametrize(
    ("spaced", "unspaced"),
    [
        ("2026 年 11 月", "2026年11月"),
        ("2026 年 11 月 3 日", "2026年11月3日"),
        ("2026年 11月", "2026年11月"),
        ("2026 年11 月", "2026年11月"),
        ("11 月 3 日", "11月3日"),
        ("11 月 3 号", "11月3日"),
        ("11 月", "11月"),
        ("12 月初", "12月初"),
    ],
)
def test_a_spaced_chinese_date_is_the_unspaced_one(spaced: str, unspaced: str) -> None:
    assert _keys(spaced) == _keys(unspaced) != []
    assert numbers(f"Kiln Sign 于 {spaced}上线") == numbers(f"Kiln Sign 于 {unspaced}上线") == set()


def test_a_spaced_chinese_quarter_is_the_unspaced_one() -> None:
    assert _keys("2026 年第 3 季度") == _keys("2026年第3季度") == ["2026-Q3"]


@pytest.mark.parametrize(
    "written",
    ["2026 年 11 月", "2026年11月", "November 2026", "Nov 2026", "2026-11", "2026/11"],
)
def test_every_spelling_of_a_month_is_one_key(written: str) -> None:
    assert _keys(written) == ["2026-11"]


@pytest.mark.parametrize(
    ("text", "figures", "keys"),
    [
        ("11 月份增长 30%", {"30%"}, ["?-11"]),  # the share beside the month stays
        ("2026 年 11 月，吞吐提升 12 倍", {"12x"}, ["2026-11"]),
        ("11 月 30% 的请求超时", {"30%"}, ["?-11"]),  # a day apart from its month needs its 日
        ("3 年 11 个月", {"3", "11"}, []),  # a duration: 3 years and 11 months
        ("3 年 11 月", {"3", "11"}, []),  # no year of a date before the month: a duration too
        ("1-11 月累计", {"1", "11"}, []),  # a range of months keeps its figures, as before
        ("近 3 月", {"3"}, []),  # the last three months
        ("2026年11个项目", {"2026", "11"}, []),  # a year and a count: no month
    ],
)
def test_figures_beside_a_date_and_durations_stay(text: str, figures: set[str], keys: list[str]) -> None:
    assert numbers(text) == figures
    assert _keys(text) == keys


def test_a_spaced_month_against_the_record_s_month_is_no_new_figure() -> None:
    claim = "Kiln Sign 于 2026 年 11 月上线"
    assert substantive_numbers(claim) == set()
    assert new_dates(claim, ["Kiln Sign launched in November 2026"]) == []
    assert new_dates("Kiln Sign 于 2026 年 12 月上线", ["Kiln Sign launched in November 2026"]) == ["2026-12"]


def test_a_month_of_no_year_is_news_only_against_a_date_the_records_write() -> None:
    assert new_dates("Kiln Sign 11 月上线", ["Kiln Sign launched in November 2026"]) == []
    assert new_dates("Kiln Sign 12 月上线", ["Kiln Sign launched in November 2026"]) == ["?-12"]
    assert new_dates("Kiln Sign 12 月上线", ["Kiln Sign launched"]) == []  # the records' silence tells nothing


@pytest.mark.parametrize("earlier", ["10-05", "10月5日", "10 月 5 日", "10 月"])
def test_a_figure_given_for_an_earlier_chinese_date_is_the_one_replaced(earlier: str) -> None:
    assert replaced_figures(f"吞吐提升 41%（{earlier} 为 38%）") == {"38%"}


_RECORD = {
    "id": "ava-kiln",
    "instance": "ava",
    "date": "2026-11-20",
    "title": "Kiln Sign 代码签名服务上线",
    "arxiv_ids": ["2611.04321"],
    "claims": ["Kiln Sign 于 2026年11月上线", "Kiln Sign 的签名延迟为 40 ms，支持 Sigstore 透明日志"],
}


def _check(capsys: pytest.CaptureFixture[str], tmp_path: Path, index: Path, first_claim: str) -> dict:
    row = {**_RECORD, "id": "tom-kiln", "instance": "tom", "date": "2026-11-21"}
    row["claims"] = [first_claim, _RECORD["claims"][1]]
    incoming = write_jsonl(tmp_path / "incoming.jsonl", [row])
    document: dict = check_json(capsys, "check", str(incoming), "--index", str(index))[1]
    return document["items"][0]


@pytest.mark.parametrize(
    ("claim", "new_numbers", "verdict"),
    [
        ("Kiln Sign 于 2026 年 11 月上线", [], "DUPLICATE"),  # the record's month, spaced
        ("Kiln Sign 于 11 月上线", [], "DUPLICATE"),  # the record's month, its year left out
        ("Kiln Sign 于 2026 年 12 月上线", ["2026-12"], "UPDATE"),  # another month: news, shown as a month
        ("Kiln Sign 于 12 月上线", ["?-12"], "UPDATE"),
    ],
)
def test_check_reads_a_spaced_month_as_the_record_s_month(
    claim: str,
    new_numbers: list[str],
    verdict: str,
    fake_models: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    index = ingest_rows(capsys, tmp_path, [_RECORD])
    item = _check(capsys, tmp_path, index, claim)
    status = item["claims"][0]
    assert (status["known"], status["new_numbers"], status["extra_numbers"]) == (not new_numbers, new_numbers, [])
    assert item["verdict"] == verdict
