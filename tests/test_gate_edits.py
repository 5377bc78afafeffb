"""What a daily pipeline reads of a gate run (probe 18): an edit of a writer's own accepted
item, each item's outcome, and a briefing of a day with no news.

1. A writer rewords a claim of an item it accepted (same file, same item number) and runs
   the gate again: the check found the same item and every claim known, a DUPLICATE of the
   item's own earlier version, and refused the whole file (exit 1). It is an edit: stored in
   place (exit 0); a repeat of another writer's record still fails.
2. Each item says what this run did with it (``outcome``), in the JSON and the MCP summary:
   a resubmitted item kept verdict NEW and was in ``accepted``, so a pipeline keyed on the
   verdict published it twice.
3. A briefing whose count line says 0 increments exited 2, as a broken file does.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import FAKE_CONFIG_NOTE
from support.briefings import written_briefing
from support.cli import check_json, ingest_rows, run

from kbsearch.dedupe.results import CheckResult
from kbsearch.serve.summary import summarize

POINT = "FP4 attention kernels reach 1.9x the FP8 throughput on B200 at equal accuracy"
ITEM = ("FlashInfer 0.6 adds FP4 attention kernels for Blackwell", POINT, "inbox/spark/flashinfer.md")
OTHER = (
    "KEDA autoscaling of vLLM replicas on the prefix cache hit ratio",
    "Scaling on queue depth and prefix cache hits keeps p99 latency under 2 s at half the GPUs",
    "inbox/spark/keda.md",
)
REWORDED = POINT.replace(" at equal accuracy", ", at equal accuracy.")
OWN = "spark/today@2026-09-20#1"


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    base = [{"id": "jay-note", "title": "量子退火 调度 电网", "text": "电网 负荷 预测", "date": "2026-09-01"}]
    return str(ingest_rows(capsys, tmp_path, base))


def inbox_file(tmp_path: Path, writer: str, text: str) -> Path:
    path = tmp_path / "inbox" / writer / "today.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def accept(capsys: pytest.CaptureFixture[str], path: Path, index: str) -> tuple[int, dict]:
    return check_json(capsys, "check", str(path), "--accept", "--index", index)


def test_a_reworded_own_item_is_an_edit_stored_in_place(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    day1 = written_briefing("2026-09-20", [ITEM, OTHER])
    code, first = accept(capsys, inbox_file(tmp_path, "spark", day1), index)
    assert code == 0 and [i["outcome"] for i in first["items"]] == ["stored", "stored"]
    path = inbox_file(tmp_path, "spark", day1.replace(POINT, REWORDED))
    code, result = accept(capsys, path, index)
    edited, kept = result["items"]
    assert code == 0 and result["accept_refused"] is None, result["accept_refused"]
    assert edited["id"] == OWN and edited["verdict"] == "DUPLICATE" and edited["own_earlier_version"]
    assert edited["edited"] and edited["outcome"] == "replaced"
    assert kept["resubmitted"] and kept["verdict"] == "NEW" and kept["outcome"] == "unchanged"
    assert result["accepted"] == [OWN, kept["id"]] and result["unchanged"] == [kept["id"]]
    code, out, _ = run(capsys, "show", OWN, "--json", "--index", index)
    assert code == 0 and ", at equal accuracy." in out  # the edit replaced the record
    path.write_text(day1.replace(POINT, REWORDED).replace("1.9x", "1.9 x") + " ", encoding="utf-8")
    code, out, _ = run(capsys, "check", str(path), "--accept", "--index", index)
    assert code == 0 and "edited in place" in out.splitlines()[-2]  # the summary, then the config's note
    assert out.splitlines()[-1] == f"note: {FAKE_CONFIG_NOTE}"


def test_an_edit_that_also_repeats_another_writers_record_still_fails(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert accept(capsys, inbox_file(tmp_path, "spark", written_briefing("2026-09-20", [ITEM])), index)[0] == 0
    jay = ("FlashInfer 0.6 adds FP4 attention kernels for Blackwell", REWORDED, "inbox/jay/flashinfer.md")
    code, result = accept(capsys, inbox_file(tmp_path, "jay", written_briefing("2026-09-20", [jay])), index)
    [item] = result["items"]
    assert code == 1 and item["verdict"] == "DUPLICATE" and not item["edited"]
    assert item["outcome"] == "refused" and result["accepted"] == []


def test_an_unchanged_resubmission_says_unchanged_and_the_summary_carries_it(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = inbox_file(tmp_path, "spark", written_briefing("2026-09-20", [ITEM]))
    assert accept(capsys, path, index)[0] == 0
    code, result = accept(capsys, path, index)
    [item] = result["items"]
    assert code == 0 and item["verdict"] == "NEW" and item["resubmitted"] and item["outcome"] == "unchanged"
    [summary] = summarize(CheckResult.model_validate(result)).items
    assert summary.resubmitted and summary.outcome == "unchanged" and not summary.edited
    code, checked = check_json(capsys, "check", str(path), "--index", index)
    assert code == 0 and checked["items"][0]["outcome"] == "checked"


ZERO = "inference · E1 预消化简报(2026-09-22)\n执行： Tom\n状态摘要\n- 增量条数：0 条\n"


@pytest.mark.parametrize("accepting", [False, True])
def test_a_briefing_that_says_it_has_no_increments_today_is_no_error(
    index: str, tmp_path: Path, accepting: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = inbox_file(tmp_path, "tom", ZERO)
    code, result = check_json(capsys, "check", str(path), "--index", index, *["--accept"] * accepting)
    assert code == 0 and result["items"] == [] and result["accepted"] == []
    note = f"{path.resolve()}: briefing has no increments today (its count line says 0): nothing to check or accept"
    assert result["notes"] == [note]
    monkeypatch.setattr("sys.stdin", io.StringIO(ZERO))
    code, out, err = run(capsys, "check", "-", "--path", str(path), "--index", index)
    assert code == 0 and "its count line says 0" in out and err == ""
    assert summarize(CheckResult.model_validate(result)).notes == result["notes"]


def test_a_briefing_with_no_increments_and_no_zero_count_is_still_an_error(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = inbox_file(tmp_path, "tom", ZERO.replace("0 条", "2 条"))
    code, _, err = run(capsys, "check", str(path), "--index", index)
    assert code == 2 and "briefing has no increments" in err
