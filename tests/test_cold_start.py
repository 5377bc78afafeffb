"""The console script's exit and the KBSEARCH_TIMINGS report (bench/cold_start.py reads both)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.timing import assert_phases_make_the_total

import kbsearch.runtime.timings as timings
from kbsearch.cli import main

ROOT = Path(__file__).resolve().parents[1]
ROWS = [
    {
        "id": "a",
        "title": "TriAttention frequency-domain KV cache compression",
        "text": "10.7x less KV memory",
        "instance": "jay",
        "date": "2026-09-17",
    }
]


def console_script(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run ``kbsearch.cli.run`` as the console script does, with an atexit handler of our own."""
    code = "import atexit; atexit.register(print, 'atexit ran'); from kbsearch.cli import run; run()"
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env=env, cwd=ROOT)


@pytest.fixture
def quiet_env(fake_models: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'tests'}")
    env.pop("PYTHONUNBUFFERED", None)  # so a missing flush would lose piped output
    env.pop("KBSEARCH_TIMINGS", None)
    return env


def test_console_script_flushes_output_and_runs_atexit(quiet_env: dict[str, str]) -> None:
    done = console_script("models", env=quiet_env)
    assert done.returncode == 0, done.stderr
    assert "fake" in done.stdout and done.stdout.rstrip().endswith("atexit ran")


def test_console_script_keeps_the_exit_code_and_the_error(quiet_env: dict[str, str], tmp_path: Path) -> None:
    done = console_script("show", "x", "--index", str(tmp_path / "none"), env=quiet_env)
    assert done.returncode == 2
    assert done.stderr.startswith("kbsearch: no index at")


def ingest(tmp_path: Path) -> str:
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    index = str(tmp_path / "idx")
    assert main(["ingest", str(source), "--index", index]) == 0
    return index


def test_timings_name_the_phases_of_a_check(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    index = ingest(tmp_path)
    monkeypatch.setenv("KBSEARCH_TIMINGS", "1")
    # Another item (no shared name, number or id): NEW, so the exit is 0.
    monkeypatch.setattr("sys.stdin.read", lambda: "Speculative decoding drafts tokens with a small model")
    capsys.readouterr()
    assert main(["check", "-", "--index", index]) == 0
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith(timings.PREFIX)]
    assert len(lines) == 1
    phases = json.loads(lines[0].removeprefix(timings.PREFIX))
    expected = {"imports", "read input", "model load", "index open", "embed items", "check", "other", "total"}
    assert expected <= set(phases)
    assert_phases_make_the_total(phases)


def test_timings_name_the_steps_of_an_audit(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    index = ingest(tmp_path)
    monkeypatch.setenv("KBSEARCH_TIMINGS", "1")
    capsys.readouterr()
    assert main(["audit", "--index", index]) == 0
    line = next(x for x in capsys.readouterr().err.splitlines() if x.startswith(timings.PREFIX))
    phases = json.loads(line.removeprefix(timings.PREFIX))
    assert {"imports", "config", "audit: the candidate pairs", "audit: the pairs judged", "output"} <= set(phases)
    assert_phases_make_the_total(phases)


def test_timings_are_silent_unless_asked(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = ingest(tmp_path)
    assert main(["stats", "--index", index]) == 0
    assert timings.PREFIX not in capsys.readouterr().err


def test_nested_phases_count_once() -> None:
    """A phase inside another counts as its own, not as the outer's too: the
    phases add up to the time that passed (the report's ``other`` is the rest)."""
    timings.reset()
    started = time.perf_counter()
    with timings.phase("outer"):
        time.sleep(0.05)
        with timings.phase("inner"):
            time.sleep(0.1)
    wall = time.perf_counter() - started
    assert set(timings._spent) == {"outer", "inner"}
    assert 0.05 <= timings._spent["outer"] < 0.1 <= timings._spent["inner"]
    assert sum(timings._spent.values()) == pytest.approx(wall, abs=0.01)


def test_a_console_run_counts_the_interpreters_start(quiet_env: dict[str, str], tmp_path: Path) -> None:
    """The report's total runs from the process's start, not from ``main``: the
    interpreter's start and the CLI's import are phase ``start``."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "kbsearch", "models"],
        capture_output=True,
        text=True,
        env={**quiet_env, "KBSEARCH_TIMINGS": "1"},
        cwd=ROOT,
    )
    wall = time.perf_counter() - started
    line = next(x for x in done.stderr.splitlines() if x.startswith(timings.PREFIX))
    phases = json.loads(line.removeprefix(timings.PREFIX))
    assert phases["start"] > 0  # at least the interpreter's own start
    assert phases["start"] < phases["total"] <= wall + 0.02  # /proc counts in 10 ms steps


def test_process_age_reads_the_process_start() -> None:
    age = timings.process_age()
    assert 0 < age < time_since_boot()


def time_since_boot() -> float:
    return float(Path("/proc/uptime").read_text().split()[0])


def test_the_total_counts_the_time_before_main(
    fake_models: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A console run's total adds the process's age at ``main`` (the interpreter's start and the
    imports), not only what ``main`` timed: the phases must add up to the wall time a user waits."""
    monkeypatch.setattr(timings, "process_age", lambda: 5.0)
    monkeypatch.setattr(sys, "argv", ["kbsearch", "models"])
    monkeypatch.setenv("KBSEARCH_TIMINGS", "1")
    assert main() == 0
    line = next(x for x in capsys.readouterr().err.splitlines() if x.startswith(timings.PREFIX))
    phases = json.loads(line.removeprefix(timings.PREFIX))
    assert phases["start"] == 5.0 and 5.0 < phases["total"] < 5.0 + 30
