"""A plan for part of a month, then the day it was done (probe 47): a record's "权重计划于 3 月下旬
放出" and a later key point "权重已于 3 月 7 日正式放出". A part of a month (上旬, 中旬, 下旬, 初, 底,
末; early, mid, late) is the days it names, so a day outside them is a changed date; and 放出 is a
release word, so done after planned is a stage moved on. The fixtures are written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import check_json, ingest_rows
from support.files import write_jsonl

from kbsearch.text.dates import dates, new_dates
from kbsearch.text.stages import Stage, moved_on, stage_said
from kbsearch.text.textsim import numbers


@pytest.mark.parametrize(
    ("written", "first", "last"),
    [
        ("3 月上旬", 1, 10),
        ("3月中旬", 11, 20),
        ("3 月下旬", 21, 31),
        ("12 月初", 1, 10),
        ("2027 年 2 月底", 21, 28),
        ("9 月末", 21, 30),
        ("mid-March 2027", 11, 20),
        ("late February 2027", 21, 28),
        ("Early May 2027", 1, 10),
    ],
)
def test_a_part_of_a_month_is_the_days_it_names(written: str, first: int, last: int) -> None:
    [date] = dates(f"权重预计 {written} 放出")
    assert (date.first.day, date.last.day) == (first, last)


@pytest.mark.parametrize(
    ("claim", "new"),
    [
        ("权重已于 3 月 7 日正式放出", ["?-03-07"]),  # before the planned days: a changed date
        ("权重已于 3 月 24 日正式放出", []),  # within them: the plan kept
        ("权重已于 3 月放出", []),  # the month holds the planned days
        ("权重已于 3 月上旬放出", ["?-03"]),  # another part of the month
    ],
)
def test_a_day_outside_a_planned_part_of_a_month_is_a_new_date(claim: str, new: list[str]) -> None:
    assert new_dates(claim, ["权重计划于 3 月下旬放出"]) == new


def test_an_english_part_of_a_month_is_its_days() -> None:
    assert new_dates("Weights released on March 7, 2027", ["Weights planned for late March 2027"]) == ["2027-03-07"]
    assert new_dates("Weights released on March 24, 2027", ["Weights planned for late March 2027"]) == []


def test_a_part_of_a_month_leaves_no_figure() -> None:
    assert numbers("权重计划于 3 月下旬放出，成功率 71%") == {"71%"}


@pytest.mark.parametrize(
    ("text", "reached"),
    [("权重已于 3 月 7 日正式放出", True), ("代码将于 3 月下旬放出", False), ("代码尚未放出", False)],
)
def test_code_put_out_is_a_release(text: str, reached: bool) -> None:
    said = stage_said(text)
    assert said is not None and (said.stage, said.reached) == (Stage.RELEASED, reached)


def test_done_after_planned_moves_on() -> None:
    claim = "Talon-Grasp 的代码与权重已于 3 月 7 日正式放出"
    assert moved_on(claim, "开源：代码计划于 3 月下旬放出") == "planned → released"
    assert moved_on(claim, "开源：权重预计于 3 月下旬放出") == "not yet released → released"
    assert moved_on(claim, "代码与权重已放出") is None  # done already
    assert stage_said("厂商提前放出消息称将降价") is None  # news let out is no release


_RECORD = {
    "id": "ava-talon",
    "instance": "ava",
    "date": "2027-03-02",
    "title": "Talon-Grasp — 双臂抓取策略",
    "arxiv_ids": ["2703.01234"],
    "claims": ["Talon-Grasp 在 GraspBench 上成功率 71%", "Talon-Grasp 的代码与权重计划于 3 月下旬放出"],
}


@pytest.mark.parametrize(
    ("told", "new_numbers", "moved"),
    [
        ("Talon-Grasp 的代码与权重计划于 3 月下旬放出", [], "planned → released"),  # the plan carried out
        ("Talon-Grasp 的代码与权重已于 3 月下旬放出", ["?-03-07"], None),  # done, on another day
    ],
)
def test_check_calls_the_plan_carried_out_or_another_day_new(
    told: str,
    new_numbers: list[str],
    moved: str | None,
    fake_models: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    record = {**_RECORD, "claims": [_RECORD["claims"][0], told]}
    index = ingest_rows(capsys, tmp_path, [record])
    row = {**_RECORD, "id": "tom-talon", "instance": "tom", "date": "2027-03-08", "title": "Talon-Grasp 代码开源"}
    row["claims"] = ["Talon-Grasp 的代码与权重已于 3 月 7 日正式放出", _RECORD["claims"][0]]
    incoming = write_jsonl(tmp_path / "incoming.jsonl", [row])
    item = check_json(capsys, "check", str(incoming), "--index", str(index))[1]["items"][0]
    status = item["claims"][0]
    assert (status["known"], status["new_numbers"], status["moved_on"]) == (False, new_numbers, moved), status
    assert item["verdict"] == "UPDATE"
