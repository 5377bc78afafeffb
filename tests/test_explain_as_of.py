"""`explain --as-of D` reads the index as `check --as-of D` did when A came in: the
records dated up to D are A's neighbourhood, and how rare a name is both count over the
whole index. Explain counted a name's holders within D (spillkv: none but A that day) and
set the records apart by the named-systems rule where check --as-of D, counting the
index (six holders, common), had called them the same item. DuoCache's title leads with no
name, so the title-leads rule (``title_leads``), which counts no holders, has no say here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import check_json, ingest_rows, run
from support.files import write_jsonl

ROWS = [
    {"id": "duo", "title": "Hot/cold two-tier KV cache with mixed precision (DuoCache)",
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


def test_explain_as_of_counts_a_name_as_check_as_of_counts_it(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inbox = write_jsonl(tmp_path / "inbox.jsonl", [ROWS[1]])
    _, checked = check_json(capsys, "check", str(inbox), "--index", index, "--as-of", "2026-10-06")
    duo = next(m for m in checked["items"][0]["matches"] if m["id"] == "duo")
    explained, rule = named_systems(capsys, index, "--as-of", "2026-10-06")
    assert rule["says"] is None, rule  # spillkv: six holders in the index, common, as check counts it
    assert explained["match"]["same_item"] == duo["same_item"] and explained["match"]["rule"] == duo["rule"]
    assert explained["as_of"] == "2026-10-06" and not explained["notes"]
    code, out, _ = run(capsys, "explain", "spill", "duo", "--index", index, "--as-of", "2026-10-06")
    assert code == 0 and "as of 2026-10-06: records dated later, and A, hidden" in out


def test_explain_as_of_says_when_b_was_written_after_that_day(index: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "spill", "later-9", "--index", index, "--as-of", "2026-10-06")
    assert code == 0 and "note: B is dated 2026-10-09, after 2026-10-06" in out


def test_explain_as_of_refuses_a_date_it_cannot_read(index: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "explain", "spill", "duo", "--index", index, "--as-of", "10-06")
    assert code == 2 and out == "" and "10-06" in err
