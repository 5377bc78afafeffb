"""An id-table row calling an id new that another writer had earlier the same day is flagged,
by check and by audit alike (``flags.row_flags``: the day's order of ``day_order``, signing
times when both give one, else the order of storing).

Probe 39: ben's briefing signed 20:30 had a paper; ada's of the same day, signed 21:40, listed
it as 本次新增. Her item on it got check's "首次锚入 … first seen by ben" flag and was skipped at
the gate as ben's repeat, so audit, which flags items it stores, listed nothing; the table row,
read only against earlier days, raised no flag in either. The texts are written for this test."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.briefings import written_briefing
from support.cli import check_json, ingest_rows, run_json
from test_accept_skip_duplicates import inbox_file

PAPER = "2610.40217"
DAY = "2026-10-08"
ITEM = (
    "Shoal: 3-bit KV cache with a full-precision window for recent tokens",
    "Keys and values kept in 3 bits, the latest 64 tokens in 16 bits; KV memory 5x smaller",
    f"arXiv:{PAPER}",
)
OTHER = (
    "Cold-start latency of serverless GPU pods cut by snapshotting weights to local NVMe",
    "Snapshot restore brings a 13B model's first token from 41 s to 6 s",
    "inbox/ada/snap.md",
)


def signed(who: str, at: str, items: list[tuple[str, str, str]]) -> str:
    return written_briefing(DAY, items, new_in_table=PAPER) + f"\n{who.title()} · {DAY} {at} CST\n"


def table_flags(flags: list[dict[str, object]]) -> list[dict[str, object]]:
    return [f for f in flags if f.get("arxiv_id") == PAPER]


def run(capsys: pytest.CaptureFixture[str], tmp_path: Path, first_at: str, second_at: str) -> tuple[list, list]:  # type: ignore[type-arg]
    base = [{"id": "note", "title": "量子退火 调度 电网", "text": "电网 负荷 预测", "date": "2026-09-01"}]
    index = str(ingest_rows(capsys, tmp_path, base))
    ben = inbox_file(tmp_path, "ben", signed("ben", first_at, [ITEM]))
    assert check_json(capsys, "check", str(ben), "--accept", "--index", index)[0] == 0
    ada = inbox_file(tmp_path, "ada", signed("ada", second_at, [ITEM, OTHER]))
    _, checked = check_json(capsys, "check", str(ada), "--accept", "--skip-duplicates", "--index", index)
    audited = run_json(capsys, "audit", "--index", index)["claimed_new_seen_before"]
    return table_flags(checked["flags"]), table_flags(audited)


def test_a_row_new_to_a_writer_who_signed_later_that_day_is_flagged_by_check_and_audit(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checked, audited = run(capsys, tmp_path, "20:30", "21:40")
    [by_check] = checked
    [by_audit] = audited
    for flag in (by_check, by_audit):
        assert flag["first_seen_instance"] == "ben" and f"earlier on {DAY} (signed 20:30)" in flag["message"]
    assert by_audit["instance"] == "ada" and by_audit["stopped_at_gate"]  # the item the gate skipped


def test_the_earlier_signed_writer_s_row_is_not_flagged_though_stored_later(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checked, audited = run(capsys, tmp_path, "20:30", "09:10")  # ada signed first, checked second
    assert checked == [] and [f for f in audited if f["instance"] == "ada"] == []
