"""The KBSEARCH_TIMINGS report that bench/cold_start.py reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbsearch import timings
from kbsearch.cli import main

ROWS = [{"id": "a", "title": "TriAttention frequency-domain KV cache compression", "text": "10.7x less KV memory",
         "instance": "jay", "date": "2026-09-17"}]


def ingest(tmp_path: Path) -> str:
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    index = str(tmp_path / "idx")
    assert main(["ingest", str(source), "--index", index]) == 0
    return index


def test_timings_name_the_phases_of_a_check(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    index = ingest(tmp_path)
    monkeypatch.setenv(timings.TIMINGS_ENV, "1")
    monkeypatch.setattr("sys.stdin.read", lambda: "TriAttention compresses the KV cache")
    capsys.readouterr()
    assert main(["check", "-", "--index", index]) in (0, 1)
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith(timings.PREFIX)]
    assert len(lines) == 1
    phases = json.loads(lines[0].removeprefix(timings.PREFIX))
    expected = {"imports", "read input", "model load", "index open", "embed items", "check", "other", "total"}
    assert expected <= set(phases)
    assert sum(v for k, v in phases.items() if k != "total") == pytest.approx(phases["total"], abs=1e-3)


def test_timings_are_silent_unless_asked(fake_models: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    index = ingest(tmp_path)
    assert main(["stats", "--index", index]) == 0
    assert timings.PREFIX not in capsys.readouterr().err


def test_nested_phases_count_once() -> None:
    timings.reset()
    with timings.phase("outer"), timings.phase("inner"):
        pass
    assert set(timings._spent) == {"outer", "inner"}
    assert timings._spent["outer"] >= 0 and timings._spent["inner"] >= 0
