"""Undated records (probe 10): ``list`` shows them after the dated ones, as
README's "oldest first" reads; a plain-text stdin item that names its day is
told that it is checked and stored undated, and how to date it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from support.cli import check_json, ingest_rows, run

ROWS = [
    {"id": "later", "title": "Prefix caching for agent loops", "text": "hit rate 80%", "date": "2026-11-05"},
    {"id": "undated", "title": "A note without a day", "text": "kept anyway"},
    {"id": "earlier", "title": "Speculative decoding with a 1B draft", "text": "2x faster", "date": "2026-11-02"},
]


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    return str(ingest_rows(capsys, tmp_path, ROWS))


def test_list_is_oldest_first_with_undated_records_last(index: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list", "--format", "ids", "--index", index)
    assert code == 0 and out.split() == ["earlier", "later", "undated"]
    code, out, _ = run(capsys, "list", "--format", "ids", "--limit", "1", "--index", index)
    assert out.split() == ["earlier"]


def test_plain_stdin_naming_its_day_is_told_it_is_undated(
    index: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("Paged KV for agents, reported 2026年11月14日\nblock size 16\n"))
    _, result = check_json(capsys, "check", "-", "--index", index)
    assert result["items"][0]["date"] is None
    [warning] = result["warnings"]
    assert "names 2026-11-14" in warning and "undated" in warning and '"date": "2026-11-14"' in warning


@pytest.mark.parametrize("text", ["Paged KV for agents\nblock size 16\n", "From 2026-11-01 to 2026-11-14\nbody\n"])
def test_plain_stdin_without_one_day_is_not_warned(
    text: str, index: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    _, result = check_json(capsys, "check", "-", "--index", index)
    assert result["warnings"] == []
