"""`explain --as-of D` reads the index as `check --as-of D` did when A came in (probe 8,
defect 9): on the final index a name A's title carries was held by A itself and by
records written later, so explain called it common and the named-systems rule had no
say, where the check that day had read it rare and set the records apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import ingest_rows, run

ROWS = [
    {"id": "duo", "title": "DuoCache: hot/cold two-tier KV cache with mixed precision",
     "text": "hot tokens in FP16, cold tokens in INT2", "instance": "spark", "date": "2026-10-03"},
    {"id": "spill", "title": "SpillKV — three-tier KV cache offloading to NVMe",
     "text": "tokens migrate between HBM, DRAM and NVMe by attention score", "instance": "spark",
     "date": "2026-10-06"},
] + [
    {"id": f"later-{day}", "title": f"SpillKV follow-up {day}", "text": "SpillKV on more hardware",
     "instance": "jay", "date": f"2026-10-{day}"}
    for day in range(7, 12)
]  # fmt: skip


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    return str(ingest_rows(capsys, tmp_path, ROWS))


def named_systems(capsys: pytest.CaptureFixture[str], index: str, *extra: str) -> tuple[dict, dict]:
    code, out, err = run(capsys, "explain", "spill", "duo", "--index", index, "--json", *extra)
    assert code == 0, err
    explained = json.loads(out)
    return explained, next(r for r in explained["rules"] if r["rule"] == "named systems")


def test_explain_as_of_counts_a_name_as_the_check_that_day_did(index: str, capsys: pytest.CaptureFixture[str]) -> None:
    explained, rule = named_systems(capsys, index)
    assert rule["says"] is None and explained["as_of"] is None  # spillkv: six holders now, common
    explained, rule = named_systems(capsys, index, "--as-of", "2026-10-06")
    assert rule["says"] is False and "spillkv" in rule["detail"], rule  # no holder that day but A: rare
    assert explained["as_of"] == "2026-10-06" and not explained["notes"]
    code, out, _ = run(capsys, "explain", "spill", "duo", "--index", index, "--as-of", "2026-10-06")
    assert code == 0 and "as of 2026-10-06: records dated later, and A, hidden" in out


def test_explain_as_of_says_when_b_was_written_after_that_day(index: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "spill", "later-9", "--index", index, "--as-of", "2026-10-06")
    assert code == 0 and "note: B is dated 2026-10-09, after 2026-10-06" in out


def test_explain_as_of_refuses_a_date_it_cannot_read(index: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "explain", "spill", "duo", "--index", index, "--as-of", "10-06")
    assert code == 2 and out == "" and "10-06" in err
