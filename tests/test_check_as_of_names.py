"""`check --as-of D` (and a plain check, which reads the index as of the item's own date)
counts how many records hold a coined name within the records it compares with: those
dated up to D, the resubmitted item itself left out. It counted the whole index, so a
name rare that day read common once later records held it, the named-systems rule had
no say, and a replay called DUPLICATE what the check that day had called NEW; explain
--as-of D, which counts within D, explained a decision the check never made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import check_json, ingest_rows, run
from support.files import write_jsonl

TEXT = "hot tokens stay in FP16 on the GPU and cold tokens go to INT2 in host memory, read back on demand"
SPILL = {
    "id": "spill",
    "title": "SpillKV: hot/cold two-tier KV cache with mixed precision",
    "text": TEXT,
    "instance": "spark",
    "date": "2026-10-06",
}
ROWS = [
    {"id": "duo", "title": "DuoCache: hot/cold two-tier KV cache with mixed precision", "text": TEXT,
     "instance": "jay", "date": "2026-10-03"},
    SPILL,
] + [
    {"id": f"later-{day}", "title": f"SpillKV follow-up {day}", "text": f"SpillKV measured on rack {day}",
     "instance": "jay", "date": f"2026-10-{day}"}
    for day in range(7, 14)
]  # fmt: skip
"""SpillKV: held by no record but the item itself on 2026-10-06, by eight today (common)."""


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    return str(ingest_rows(capsys, tmp_path, ROWS))


def check_spill(capsys: pytest.CaptureFixture[str], tmp_path: Path, index: str, *extra: str) -> dict:
    inbox = write_jsonl(tmp_path / "inbox.jsonl", [SPILL])
    _, result = check_json(capsys, "check", str(inbox), "--index", index, *extra)
    item: dict = result["items"][0]
    assert item["resubmitted"], item  # the stored spill is this very submission: left out
    return item


def duo_match(item: dict) -> dict:
    return next(m for m in item["matches"] if m["id"] == "duo")


def test_a_name_rare_that_day_sets_the_records_apart_as_the_check_that_day_did(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The whole index counts SpillKV common, so nothing sets the two titles apart.
    late = check_spill(capsys, tmp_path, index, "--as-of", "2026-10-20")
    assert late["verdict"] == "DUPLICATE" and duo_match(late)["same_item"], late
    # That day (and the plain check, as of the item's own date) SpillKV and DuoCache were both rare.
    for extra in (("--as-of", "2026-10-06"), ()):
        item = check_spill(capsys, tmp_path, index, *extra)
        assert item["verdict"] == "NEW", (extra, item)
        match = duo_match(item)
        assert not match["same_item"] and match["rule"] == "different_names", (extra, match)


def test_check_as_of_and_explain_as_of_decide_the_pair_alike(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for day in ("2026-10-06", "2026-10-20"):
        checked = duo_match(check_spill(capsys, tmp_path, index, "--as-of", day))
        code, out, err = run(capsys, "explain", "spill", "duo", "--index", index, "--as-of", day, "--json")
        assert code == 0, err
        explained = json.loads(out)["match"]
        assert (checked["same_item"], checked["rule"]) == (explained["same_item"], explained["rule"]), day
