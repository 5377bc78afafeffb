"""audit on an inbox file reused from day to day (``inbox/<writer>/today.md``).

Each day the file holds that day's briefing, and its records carry the day in
their ids (``omega/today@2026-09-24#1``) but share the file. "One file's records
are never compared" means one briefing: one file on one day. The days of a
reused file are compared, clustered and flagged as dated files are, and each
id-table flag names its own day.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.briefings import written_briefing
from support.cli import check_json, ingest_rows, run
from support.files import write

PAPER = "2609.30001"
ITEMS = {
    "fp4": (
        "FlashInfer 0.6 adds FP4 attention kernels for Blackwell",
        "FP4 attention kernels reach 1.9x the FP8 throughput on B200 at equal accuracy",
        "inbox/omega/fp4.md",
    ),
    "paper": (
        "RingKV shards the KV cache across a ring of GPUs",
        "Ring sharding cuts the per-GPU KV memory by 4x at 32k context",
        f"arXiv {PAPER}",
    ),
    "uv": (
        "uv pins CUDA wheels per platform with an index url",
        "One lock file serves x86 and aarch64 builds of the serving image",
        "inbox/nova/uv.md",
    ),
}


def briefing(day: str, *names: str, new_in_table: str | None = None) -> str:
    return written_briefing(day, [ITEMS[name] for name in names], new_in_table)


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """An index holding a card dated 2026-09-20 about ``PAPER``."""
    card = {"id": "card/2000", "title": "RingKV", "text": "KV cache sharded over a ring", "date": "2026-09-20"}
    return str(ingest_rows(capsys, tmp_path, [{**card, "arxiv_ids": [PAPER]}]))


def ingest_day(capsys: pytest.CaptureFixture[str], path: Path, text: str, index: str) -> None:
    """The day's briefing written into ``path``, and its inbox ingested as each day."""
    write(path, text)
    code, _, err = run(capsys, "ingest", str(path.parent.parent), "--prune", "--index", index)
    assert code == 0, err


def members(cluster: dict) -> list[str]:
    return [cluster["first_seen"]["id"], *(m["id"] for m in cluster["repeats"])]


@pytest.mark.parametrize(
    ("first", "second"),
    [("today.md", "today.md"), ("2026-09-24-omega.md", "2026-09-25-omega.md")],
    ids=["reused-file", "dated-files"],
)
def test_the_days_of_a_reused_inbox_file_are_clustered_as_dated_files_are(
    first: str, second: str, index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same increment on 09-24 and (only the header's date changed) on 09-25: audit found
    0 clusters when both days were the one file today.md, while explain and check called them
    the same item, and the same two briefings under dated file names made a cluster."""
    inbox = tmp_path / "inbox" / "omega"
    ingest_day(capsys, inbox / first, briefing("2026-09-24", "fp4"), index)
    ingest_day(capsys, inbox / second, briefing("2026-09-25", "fp4"), index)
    _, result = check_json(capsys, "audit", "--instance", "omega", "--index", index)
    [cluster] = result["clusters"]
    day1, day2 = members(cluster)
    assert "2026-09-24" in day1 and "2026-09-25" in day2
    assert cluster["repeats"][0]["same_as"] == day1


def test_a_briefings_items_of_one_day_are_still_never_compared(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two increments of one day's briefing are distinct items, even word for word."""
    inbox = tmp_path / "inbox" / "omega" / "today.md"
    ingest_day(capsys, inbox, briefing("2026-09-24", "fp4", "fp4"), index)
    _, result = check_json(capsys, "audit", "--instance", "omega", "--index", index)
    assert result["clusters"] == []


def test_a_reused_files_table_is_checked_against_the_files_records_of_other_days(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """nova's 09-24 record is about the paper; nova's 09-26 table (the same today.md) lists it as
    本次新增. check flagged it, audit did not: it left the table's whole file out."""
    index = str(ingest_rows(capsys, tmp_path, [{"id": "jay-note", "title": "电网", "text": "负荷 预测"}]))
    inbox = tmp_path / "inbox" / "nova" / "today.md"
    ingest_day(capsys, inbox, briefing("2026-09-24", "paper"), index)
    ingest_day(capsys, inbox, briefing("2026-09-26", "uv", new_in_table=PAPER), index)
    _, result = check_json(capsys, "audit", "--index", index)
    [flag] = [f for f in result["claimed_new_seen_before"] if f["arxiv_id"] == PAPER]
    assert flag["first_seen_id"] == "nova/today@2026-09-24#1"
    assert flag["message"].startswith("nova 2026-09-26: ")


def test_each_table_flag_of_a_reused_file_names_its_own_day(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """nova's 09-24 and 09-26 tables (the same today.md) both call the paper new, and a card had
    it on 09-20: audit printed the 09-24 line twice, labelled by the file's first table."""
    inbox = tmp_path / "inbox" / "nova" / "today.md"
    ingest_day(capsys, inbox, briefing("2026-09-24", "uv", new_in_table=PAPER), index)
    ingest_day(capsys, inbox, briefing("2026-09-26", "uv", new_in_table=PAPER), index)
    code, out, err = run(capsys, "audit", "--index", index)
    assert code in (0, 1), err
    said = f"arXiv {PAPER} is listed as '本次新增' but a record had it on 2026-09-20 (card/2000)"
    flagged = sorted(line.strip() for line in out.splitlines() if said in line)
    assert flagged == [f"! nova 2026-09-24: {said}", f"! nova 2026-09-26: {said}"]
