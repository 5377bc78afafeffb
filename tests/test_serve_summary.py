"""MCP `check` and `accept` answer a summary: small enough for an agent's context and for
the official client, which refuses an SSE event over 1 MiB (a 60-item check of the whole
result was 1.3 MB); `detail: "full"` adds the whole result, as `check --json` prints it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from serve_support import BRIEFING, build_index

from kbsearch.cli import main
from kbsearch.limits import DEFAULT_LIMITS
from kbsearch.serve.service import Service
from kbsearch.serve.summary import CLAIM_BYTES
from kbsearch.serve.tokens import Access
from kbsearch.serve.tools import build_mcp

SSE_EVENT_LIMIT = 1024 * 1024
"""What the official MCP client's SSE reader takes in one event."""
PATH = "inbox/stephen/2026-09-21-inference-e1prep.md"


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    return build_index(tmp_path)


def call(service: Service, name: str, arguments: dict[str, Any]) -> Any:
    async def run() -> Any:
        async with Client(build_mcp(service, lambda ctx: Access.write)) as client:
            return await client.call_tool(name, arguments)

    return asyncio.run(run())


def wire_bytes(result: Any) -> int:
    """The JSON-RPC result as the server sends it in one event."""
    return len(result.model_dump_json(by_alias=True, exclude_none=True).encode())


def biggest_briefing() -> str:
    """The biggest input the limits let through: 100 items, 500 claims, long Chinese claims."""
    items, claims = DEFAULT_LIMITS.input_items or 100, DEFAULT_LIMITS.input_claims or 500
    per_item = claims // items
    lines = ["# inference · E1 预消化简报(2026-09-21)", "", "执行： Stephen", ""]
    claim = "在长上下文解码时按块压缩键值缓存并把冷块换出到本机固态盘，" * 9  # 261 characters
    for n in range(1, items + 1):
        lines += [f"## 增量 {n}：第 {n} 号系统把 KV cache 压缩到原来的 {n}%（⭐⭐⭐）", "", "- 来源：内部实践"]
        lines += ["- 要点：", *(f"  - 第 {n}.{c} 条：{claim}" for c in range(per_item))]
        lines.append("")
    text = "\n".join(lines)
    assert len(text) <= (DEFAULT_LIMITS.input_chars or 0)
    return text


def test_check_answers_a_summary_and_its_text_is_that_summary(service: Service) -> None:
    result = call(service, "check", {"text": BRIEFING, "path": PATH})
    assert not result.is_error, result.content
    summary = result.structured_content
    assert json.loads(result.content[0].text) == summary  # the spec's serialized JSON, once, compact
    assert "\n" not in result.content[0].text and "full" not in summary and summary["detail"] == "summary"
    assert sum(summary["verdicts"].values()) == len(summary["items"]) == 2
    first = summary["items"][0]
    assert set(first) >= {"id", "verdict", "reason", "first_seen", "best_match", "new_claims"}
    assert "features" not in result.content[0].text and "matches" not in first
    new = [c for item in summary["items"] for c in item["new_claims"]]
    assert new and all(c["text"] and c["n"] >= 1 for c in new)


def test_full_detail_adds_the_clis_document_but_the_text_stays_the_summary(
    service: Service, index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    briefing = index.parent / PATH
    briefing.parent.mkdir(parents=True)
    briefing.write_text(BRIEFING, encoding="utf-8")
    result = call(service, "check", {"text": BRIEFING, "path": str(briefing), "detail": "full"})
    full = result.structured_content.pop("full")
    assert json.loads(result.content[0].text) == result.structured_content
    capsys.readouterr()
    assert main(["check", str(briefing), "--index", str(index), "--json"]) in (0, 1)
    assert full == json.loads(capsys.readouterr().out)
    assert "features" in json.dumps(full) and "features" not in result.content[0].text


def test_accept_answers_a_summary_too(service: Service) -> None:
    result = call(service, "accept", {"text": BRIEFING, "path": PATH})
    assert not result.is_error and result.structured_content["accepted"]
    assert "features" not in result.content[0].text and "full" not in result.structured_content


def test_the_biggest_input_fits_in_one_event_of_the_official_client(service: Service) -> None:
    result = call(service, "check", {"text": biggest_briefing(), "path": PATH})
    assert not result.is_error, result.content
    items = result.structured_content["items"]
    assert len(items) == 100 and sum(len(i["new_claims"]) for i in items) == 500
    assert all(len(c["text"].encode()) <= CLAIM_BYTES for i in items for c in i["new_claims"])
    size = wire_bytes(result)
    assert size < SSE_EVENT_LIMIT * 0.7, size  # room left for the JSON-RPC envelope and SSE framing


def test_the_json_api_answers_the_whole_result_unless_asked_for_the_summary(service: Service, index: Path) -> None:
    from serve_support import AsgiClient

    from kbsearch.serve.http import build_app
    from kbsearch.serve.tokens import READ_TOKEN, Tokens

    tokens, _ = Tokens.in_folder(index)
    client = AsgiClient(build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024))
    headers = {"Authorization": f"Bearer {(index / READ_TOKEN).read_text().strip()}"}
    body = {"text": BRIEFING, "path": PATH}
    full = client.post("/api/check", json=body, headers=headers).json()
    summary = client.post("/api/check", json={**body, "detail": "summary"}, headers=headers).json()
    assert "matches" in full["items"][0] and "detail" not in full  # as `check --json` prints it
    assert summary["detail"] == "summary" and summary["full"] is None and "matches" not in summary["items"][0]
    assert [i["verdict"] for i in summary["items"]] == [i["verdict"] for i in full["items"]]
    spec = client.get("/api/openapi.json", headers=headers).json()
    answer = spec["paths"]["/api/check"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert {ref["$ref"].rsplit("/", 1)[1] for ref in answer["oneOf"]} == {"CheckResult", "CheckSummary"}
