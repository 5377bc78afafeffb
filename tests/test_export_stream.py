"""``kbsearch export`` (probe 22): the stored records as the labelled stream rows
``calibrate`` reads, so a lead labels the records already in the index instead of
writing the rows by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.files import write_jsonl

RECORDS = [
    {"id": "m1", "date": "2026-10-01", "instance": "mira", "title": "Draft trees", "text": "Draft trees: 2x faster."},
    {"id": "m2", "date": "2026-10-02", "instance": "mira", "title": "草稿树", "text": "草稿树把解码延迟减半。"},
    {"id": "o1", "date": "2026-10-02", "instance": "olga", "title": "FP8 kernels", "text": "FP8 kernels: 1.4x."},
    {"id": "m3", "date": "2026-10-03", "instance": "mira", "title": "KV in 2 bits", "text": "The KV cache in 2 bits."},
    {"id": "u1", "instance": "mira", "title": "Undated", "text": "An undated note."},
]


@pytest.fixture
def stored(cli, tmp_path: Path) -> str:  # type: ignore[no-untyped-def]
    folder = str(tmp_path / "idx")
    assert cli("ingest", str(write_jsonl(tmp_path / "feed.jsonl", RECORDS)), "--index", folder)[0] == 0
    return folder


def rows_of(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines()]


def test_export_writes_stream_rows_left_to_label(cli, stored: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("export", "--index", stored, "--instance", "mira", "--since", "2026-10-02")
    assert code == 0
    rows = rows_of(out)
    assert [r["id"] for r in rows] == ["m2", "m3"]  # oldest first; olga's and the undated one left out
    assert all(r["item"] is None and r["role"] == "both" for r in rows)
    assert rows[0]["text"] == "草稿树把解码延迟减半。" and rows[0]["date"] == "2026-10-02"
    assert "source" not in rows[0] and "position" not in rows[0] and "content_hash" not in rows[0]
    assert "exported 2 record(s)" in err and "fill in each row's 'item'" in err
    code, out, err = cli("export", "--index", stored)
    assert code == 0 and [r["id"] for r in rows_of(out)] == ["m1", "m2", "o1", "m3"]
    assert "exported 4 record(s)" in err and "1 undated record(s) left out" in err
    code, out, _ = cli("export", "--index", stored, "--limit", "1")
    assert code == 0 and [r["id"] for r in rows_of(out)] == ["m1"]


def test_export_labelled_then_calibrated(cli, stored: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The round trip: export, fill in 'item', calibrate reads the file and replays it."""
    code, out, _ = cli("export", "--index", stored)
    assert code == 0
    rows = rows_of(out)
    same = {"m1": "draft", "m2": "draft"}  # m2 repeats m1 in Chinese
    for row in rows:
        row["item"] = same.get(str(row["id"]), row["id"])
    stream = write_jsonl(tmp_path / "labelled.jsonl", rows)
    code, out, err = cli("calibrate", str(stream), "--json", "--out", str(tmp_path / "fitted.json"))
    assert code == 0, err
    assert json.loads(out)["model"] == "fake"


def test_export_unlabelled_is_refused_by_calibrate(cli, stored: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Fed back without its labels, the file is refused in one line naming it, not fitted."""
    code, out, _ = cli("export", "--index", stored)
    stream = tmp_path / "unlabelled.jsonl"
    stream.write_text(out, encoding="utf-8")
    code, _, err = cli("calibrate", str(stream))
    assert code == 2 and "unlabelled.jsonl" in err and "'item'" in err
