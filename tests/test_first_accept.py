"""``check --accept`` on a team's first day, with no index yet (probe 10).

The README's gate, ``kbsearch check today.md --accept && publish today.md``,
is what a team runs from its very first briefing: with no index every item is
NEW, so the accept creates the index, bound to the model, as a first ingest
would; a refused or failed first accept leaves no folder behind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import check_json, run, run_json
from support.files import write_jsonl

import kbsearch.ingest.accepting as accepting
from kbsearch.store import Store

NOTES = [
    {
        "id": "jay-1",
        "title": "Speculative decoding on one small draft model",
        "text": "a draft of 1B",
        "date": "2026-11-03",
        "instance": "jay",
    },
    {
        "id": "jay-2",
        "title": "Prefix caching for agent loops",
        "text": "cache hit 80%",
        "date": "2026-11-03",
        "instance": "jay",
    },
]


def test_the_first_accept_creates_the_index_with_every_item_new(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "team" / "idx"
    code, out, err = run(
        capsys, "check", str(write_jsonl(tmp_path / "day1.jsonl", NOTES)), "--accept", "--index", str(index)
    )
    assert code == 0, err
    assert "2 items: 2 NEW, 0 UPDATE, 0 DUPLICATE" in out and f"accepted 2 into a new index at {index}" in out
    assert Store.exists(index) and json.loads((index / "manifest.json").read_text())["model"] == "fake"
    listed = run_json(capsys, "list", "--index", str(index))
    assert sorted(r["id"] for r in listed["records"]) == ["jay-1", "jay-2"]
    # The next day's gate runs against it: a repeat is caught.
    again = [{**NOTES[0], "id": "spark-1", "instance": "spark", "date": "2026-11-04"}]
    code, day2 = check_json(
        capsys, "check", str(write_jsonl(tmp_path / "day2.jsonl", again)), "--accept", "--index", str(index)
    )
    assert code == 1 and day2["items"][0]["verdict"] == "DUPLICATE" and day2["created_index"] is None


def test_a_refused_first_accept_leaves_no_folder(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "team" / "idx"
    twice = [NOTES[0], {**NOTES[0], "id": "spark-1", "instance": "spark", "date": "2026-11-04"}]
    code, result = check_json(
        capsys, "check", str(write_jsonl(tmp_path / "day1.jsonl", twice)), "--accept", "--index", str(index)
    )
    assert code == 1 and result["accept_refused"].startswith("nothing accepted")
    assert result["created_index"] is None and not (tmp_path / "team").exists()


def test_a_failed_first_accept_leaves_no_folder(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(accepting, "accept", broken)
    index = tmp_path / "team" / "idx"
    code, _, err = run(
        capsys, "check", str(write_jsonl(tmp_path / "day1.jsonl", NOTES)), "--accept", "--index", str(index)
    )
    assert code != 0 and err
    assert not (tmp_path / "team").exists()


def test_a_plain_check_still_needs_an_index(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "idx"
    code, _, err = run(capsys, "check", str(write_jsonl(tmp_path / "day1.jsonl", NOTES)), "--index", str(index))
    assert code == 2 and "no index at" in err and not index.exists()
