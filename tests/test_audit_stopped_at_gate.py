"""An id-table row calling an id new whose item the gate stopped is flagged as stopped (``dedupe.stopped``).

Probe 38: noa's table said "本次新增" for a paper kai had the day before; the item on it was
skipped as a DUPLICATE by ``check --accept --skip-duplicates`` and never stored, yet audit's flag
read as a repeat in the knowledge base. The writer's claim was wrong all the same, so the flag
stays, saying the gate stopped the item (``stopped_at_gate``); once the item is stored
(``ingest --include-skipped``) the flag is the plain one. The texts are written for this test."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.briefings import written_briefing
from support.cli import check_json, ingest_rows, run_json
from test_accept_skip_duplicates import inbox_file

PAPER = "2609.30417"
ITEM = (
    "Ridgeline: speculative decoding with tree-shaped drafts",
    "Tree-shaped drafts accept 4.1 tokens per step on average, 2.6x faster decoding at batch 1",
    f"arXiv:{PAPER}",
)
OTHER = (
    "Cold-start latency of serverless GPU pods cut by snapshotting weights to local NVMe",
    "Snapshot restore brings a 13B model's first token from 41 s to 6 s",
    "inbox/jay/snap.md",
)


def test_a_row_on_an_item_the_gate_skipped_is_flagged_as_stopped_there(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = [{"id": "note", "title": "量子退火 调度 电网", "text": "电网 负荷 预测", "date": "2026-09-01"}]
    index = str(ingest_rows(capsys, tmp_path, base))
    kay = inbox_file(tmp_path, "kay", written_briefing("2026-09-20", [ITEM], new_in_table=PAPER))
    assert check_json(capsys, "check", str(kay), "--accept", "--index", index)[0] == 0
    jay = inbox_file(tmp_path, "jay", written_briefing("2026-09-21", [ITEM, OTHER], new_in_table=PAPER))
    code, result = check_json(capsys, "check", str(jay), "--accept", "--skip-duplicates", "--index", index)
    [skipped] = result["skipped"]
    assert code == 0 and skipped["id"].startswith("jay/")
    [flag] = run_json(capsys, "audit", "--index", index)["claimed_new_seen_before"]
    assert flag["arxiv_id"] == PAPER and flag["instance"] == "jay" and flag["first_seen_instance"] == "kay"
    assert flag["stopped_at_gate"] == skipped["id"]
    assert f"stopped at the gate: {skipped['id']} was skipped as a DUPLICATE" in flag["message"]
    # Stored after all, the item is a repeat in the knowledge base: the plain flag.
    run_json(capsys, "ingest", str(jay), "--include-skipped", "--index", index)
    flags = run_json(capsys, "audit", "--index", index)["claimed_new_seen_before"]
    table = [f for f in flags if f["id"] is None]
    assert [f["stopped_at_gate"] for f in table] == [None], flags
    assert all("stopped at the gate" not in f["message"] for f in flags)
