"""``ingest`` of a briefing whose count line says 0 increments (增量条数：0 条) reads it as
``check`` does: a day with no news, exit 0 and a note, not a broken file (exit 2). A daily
pipeline ingesting every briefing failed on a writer's empty day.

The file yields no records, as any file may: on a new index nothing is made; a file that gave
records before keeps them, with the warning any shrunken file gets, and ``--prune`` drops them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.briefings import written_briefing
from support.cli import run

DAY = "2026-09-22"
EMPTY = f"llm-infra · E1 预消化简报({DAY})\n执行： Tom\n状态摘要\n- 增量条数：0 条\n"
ITEMS = [
    ("FlashInfer 0.6 adds FP4 attention kernels for Blackwell", "FP4 kernels reach 1.9x FP8 throughput", "blog"),
    ("KEDA autoscaling of vLLM replicas", "Scaling on prefix cache hits halves the GPUs", "blog"),
]


@pytest.fixture
def briefing(tmp_path: Path) -> Path:
    path = tmp_path / "briefings" / "tom" / f"{DAY}-tom-llm-infra-e1prep.md"
    path.parent.mkdir(parents=True)
    path.write_text(EMPTY, encoding="utf-8")
    return path


def note(path: Path) -> str:
    return f"{path}: briefing has no increments today (its count line says 0): nothing to ingest"


def test_an_empty_day_is_no_error_and_makes_no_index(
    fake_models: Path, briefing: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "idx"
    code, out, err = run(capsys, "ingest", str(briefing), "--index", str(index))
    assert (code, err) == (0, "") and f"note: {note(briefing)}" in out
    code, out, _ = run(capsys, "ingest", str(briefing.parent), "--index", str(index), "--json")
    report = json.loads(out)
    assert code == 0 and report["notes"] == [note(briefing)] and report["records"] == 0 and report["refused"] == []
    assert not index.exists()


def test_a_briefing_emptied_keeps_its_records_unless_pruned(
    fake_models: Path, briefing: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "idx")
    briefing.write_text(written_briefing(DAY, ITEMS), encoding="utf-8")
    assert run(capsys, "ingest", str(briefing), "--index", index)[0] == 0
    briefing.write_text(EMPTY, encoding="utf-8")
    code, out, err = run(capsys, "ingest", str(briefing), "--index", index)
    assert code == 0 and note(briefing) in out
    assert "2 records from" in err and "no longer in it" in err and "run with --prune to drop them" in err
    assert "(2 of 2 records)" in run(capsys, "list", "--index", index)[1]
    code, out, _ = run(capsys, "ingest", str(briefing), "--index", index, "--prune", "--json")
    report = json.loads(out)
    assert code == 0 and report["removed"] == 2 and report["notes"] == [note(briefing)]
    assert "(0 of 0 records)" in run(capsys, "list", "--index", index)[1]
