"""``check --accept --skip-duplicates``: store a briefing's NEW and UPDATE items, leave out its DUPLICATEs.

A new user replaying the team's daily workflow (check each briefing, drop the DUPLICATE items,
accept the rest) had to edit the briefing by hand: ``--accept`` stores every item or none.
With ``--skip-duplicates`` the rest is stored in one transaction, ``skipped`` names each
DUPLICATE left out and what it repeats, and the run exits 0 (the rest is stored: a pipeline's
``&& publish`` goes on). Every other guarantee of ``--accept`` holds.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from serve_support import BRIEFING, AsgiClient, build_index, service_for
from support.briefings import written_briefing
from support.cli import check_json, ingest_rows, run
from support.files import write_jsonl

from kbsearch.kb import KnowledgeBase
from kbsearch.serve.http import build_app
from kbsearch.serve.tokens import WRITE_TOKEN, Access, Tokens
from kbsearch.serve.tools import build_mcp

POINT = "FP4 attention kernels reach 1.9x the FP8 throughput on B200 at equal accuracy"
ITEM = ("FlashInfer 0.6 adds FP4 attention kernels for Blackwell", POINT, "inbox/spark/flashinfer.md")
OTHER = (
    "KEDA autoscaling of vLLM replicas on the prefix cache hit ratio",
    "Scaling on queue depth and prefix cache hits keeps p99 latency under 2 s at half the GPUs",
    "inbox/spark/keda.md",
)
SPARK = "spark/today@2026-09-20#1"
REPEAT, KEDA = "jay/today@2026-09-21#1", "jay/today@2026-09-21#2"


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    base = [{"id": "jay-note", "title": "量子退火 调度 电网", "text": "电网 负荷 预测", "date": "2026-09-01"}]
    index = str(ingest_rows(capsys, tmp_path, base))
    spark = inbox_file(tmp_path, "spark", written_briefing("2026-09-20", [ITEM]))
    assert check_json(capsys, "check", str(spark), "--accept", "--index", index)[0] == 0
    return index


def inbox_file(tmp_path: Path, writer: str, text: str, name: str = "today.md") -> Path:
    path = tmp_path / "inbox" / writer / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def state(index: str) -> tuple[int, set[str]]:
    with KnowledgeBase.open(index) as kb:
        return kb.stats().generation, {r.id for r in kb.listing().records}


def test_the_rest_is_stored_the_duplicate_skipped_and_named_with_what_it_repeats(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jay = inbox_file(tmp_path, "jay", written_briefing("2026-09-21", [ITEM, OTHER]))
    before = state(index)
    code, refused = check_json(capsys, "check", str(jay), "--accept", "--index", index)
    assert code == 1 and refused["accepted"] == [] and state(index) == before  # plain --accept: all or nothing
    code, result = check_json(capsys, "check", str(jay), "--accept", "--skip-duplicates", "--index", index)
    assert code == 0 and result["accept_refused"] is None
    assert [i["outcome"] for i in result["items"]] == ["skipped", "stored"]
    assert result["accepted"] == [KEDA] and result["unchanged"] == []
    [skipped] = result["skipped"]
    assert skipped["id"] == REPEAT and skipped["repeats"][0] == SPARK and skipped["reason"]
    assert any(REPEAT in note and "kbsearch ingest" in note for note in result["notes"])  # the file still holds it
    generation, ids = state(index)
    assert ids == before[1] | {KEDA} and generation == before[0] + 1  # one transaction
    # The same text again: the stored item is unchanged, the repeat skipped again, nothing written.
    code, again = check_json(capsys, "check", str(jay), "--accept", "--skip-duplicates", "--index", index)
    assert code == 0 and again["unchanged"] == [KEDA] and again["skipped"] == result["skipped"]
    assert state(index) == (generation, ids)


def test_the_text_output_says_what_was_skipped_and_what_it_repeats(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jay = inbox_file(tmp_path, "jay", written_briefing("2026-09-21", [ITEM, OTHER]))
    code, out, _ = run(capsys, "check", str(jay), "--accept", "--skip-duplicates", "--index", index)
    assert code == 0
    assert "; accepted 1; skipped 1 DUPLICATE" in out
    assert f"skipped {REPEAT}: repeats {SPARK}" in out.splitlines()
    assert "not stored: skipped as a DUPLICATE" in out


def test_skip_duplicates_without_accept_is_a_one_line_error(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jay = inbox_file(tmp_path, "jay", written_briefing("2026-09-21", [ITEM, OTHER]))
    before = state(index)
    code, out, err = run(capsys, "check", str(jay), "--skip-duplicates", "--index", index)
    assert code == 2 and out == "" and "--skip-duplicates needs --accept" in err
    assert state(index) == before


def test_skipping_never_lets_an_item_overwrite_another_items_record(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An undated file reused for other news: its item 1 is another item under a stored id."""
    notes = inbox_file(tmp_path, "jay", written_briefing(None, [OTHER]), "notes.md")
    assert check_json(capsys, "check", str(notes), "--accept", "--index", index)[0] == 0
    before = state(index)
    notes.write_text(written_briefing(None, [FRESH, OTHER]), encoding="utf-8")  # 1: other news; 2: stored as 1
    code, out, err = run(capsys, "check", str(notes), "--accept", "--skip-duplicates", "--index", index)
    assert code == 2 and out == "" and "is stored for another item" in err, err
    assert state(index) == before
    # --replace would overwrite the very record the skipped item 2 repeats: it would be lost.
    code, out, err = run(capsys, "check", str(notes), "--accept", "--skip-duplicates", "--replace", "--index", index)
    assert code == 2 and out == "" and "it would be lost, so nothing was stored" in err, err
    assert state(index) == before


FRESH = (
    "Mooncake moves the KV cache between prefill and decode nodes",
    "Mooncake transfers KV cache blocks over RDMA at 40 GB/s between prefill and decode pools",
    "inbox/jay/mooncake.md",
)


def test_a_first_accept_skips_an_item_repeating_one_of_the_same_input(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No index yet (a team's first day): two writers' copies of one item in one JSONL; the later is skipped."""
    index = str(tmp_path / "new-index")
    row = {"title": ITEM[0], "text": POINT}
    rows = [{**row, "id": "a", "instance": "spark", "date": "2026-09-20"}, {**row, "id": "b", "instance": "jay"}]
    both = write_jsonl(tmp_path / "both.jsonl", [rows[0], {**rows[1], "date": "2026-09-21"}])
    code, result = check_json(capsys, "check", str(both), "--accept", "--skip-duplicates", "--index", index)
    assert code == 0 and result["created_index"]
    assert result["accepted"] == ["a"] and result["skipped"][0]["id"] == "b"
    assert result["skipped"][0]["repeats"] == ["a"]  # an earlier item of this same input
    assert state(index)[1] == {"a"}


def test_http_and_mcp_take_skip_duplicates(fake_models: Path, tmp_path: Path) -> None:
    import asyncio

    from mcp import Client

    index = build_index(tmp_path)
    service = service_for(index, lock_timeout=5.0)
    try:
        client = AsgiClient(build_app(service, Tokens.in_folder(index)[0], host="127.0.0.1", max_body=64 * 1024))
        auth = {"Authorization": f"Bearer {(index / WRITE_TOKEN).read_text().strip()}"}
        path = "inbox/stephen/2026-09-21-inference-e1prep.md"
        assert client.post("/api/check", json={"text": BRIEFING, "path": path, "accept": True}, headers=auth).json()
        tom = "inbox/tom/2026-09-22-inference-e1prep.md"
        mixed = {"text": BRIEFING.replace("本报告由", EXTRA + "本报告由"), "path": tom}
        alone = client.post("/api/check", json={**mixed, "skip_duplicates": True}, headers=auth)
        assert alone.status_code == 400 and "needs accept" in alone.json()["error"]
        body = {**mixed, "accept": True, "skip_duplicates": True}
        answer = client.post("/api/check", json=body, headers=auth).json()
        assert answer["accept_refused"] is None and len(answer["accepted"]) == 1
        assert len(answer["skipped"]) == 2 and all(s["repeats"] for s in answer["skipped"])

        async def call() -> dict:
            async with Client(build_mcp(service, lambda ctx: Access.write)) as mcp:
                done = await mcp.call_tool("accept", {**mixed, "skip_duplicates": True})
                return dict(done.structured_content or {})

        summary = asyncio.run(call())  # the same text again: the stored one unchanged, the two skipped again
        assert summary["unchanged"] == answer["accepted"] and summary["skipped"] == answer["skipped"]
    finally:
        service.close()


EXTRA = (
    "## 增量 3：Prefill 节点按队列长度扩缩容（⭐⭐⭐）\n\n- 来源：内部实践\n- 要点：\n"
    "  - 队列长度超过 64 时新增一个 prefill 副本\n- 可信度：中\n\n"
)


def test_explain_and_similar_of_a_skipped_id_say_where_it_went_and_how_to_read_it(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Probe 40: a new user passed the id check showed to explain and heard only "no record
    with id": the skip memory knows it was left out, when, what it repeats and its file."""
    jay = inbox_file(tmp_path, "jay", written_briefing("2026-09-21", [ITEM, OTHER]))
    assert check_json(capsys, "check", str(jay), "--accept", "--skip-duplicates", "--index", index)[0] == 0
    for argv in (["similar", REPEAT], ["explain", REPEAT, SPARK]):
        code, out, err = run(capsys, *argv, "--index", index)
        assert code == 2 and out == ""
        assert f"{REPEAT} was skipped at the gate as a DUPLICATE of {SPARK} on 20" in err
        assert "(check --accept --skip-duplicates)" in err
        told = re.search(r"explain (\S+) (\S+) reads it from its file", err)
        assert told is not None and told.groups() == (f"{jay}#1", SPARK)
    code, out, _ = run(capsys, "explain", f"{jay}#1", SPARK, "--index", index)  # the suggestion works
    assert code == 0 and "same item" in out
    code, _, err = run(capsys, "similar", "nope", "--index", index)  # an id never seen: as before
    assert code == 2 and "skipped" not in err
