"""An MCP call over stdio that its client cancels (``notifications/cancelled``), or
leaves running when it closes the pipe, is logged as over HTTP: which call, its id,
and after how long. Over stdio nothing was logged."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest
from mcp.shared.message import SessionMessage
from serve_support import briefing_with_claims, build_index, service_for, slow_claims

from kbsearch.serve.mcp_stdio import run_watched
from kbsearch.serve.tokens import Access
from kbsearch.serve.tools import build_mcp


def _message(message: dict[str, Any]) -> SessionMessage:
    return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_python({"jsonrpc": "2.0", **message}))


def _check(n: int) -> SessionMessage:
    arguments = {"text": briefing_with_claims(20)}
    return _message({"id": n, "method": "tools/call", "params": {"name": "check", "arguments": arguments}})


def test_an_mcp_call_over_stdio_its_client_gives_up_is_logged(
    fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    index = build_index(tmp_path)
    service = service_for(index)
    judged = slow_claims(monkeypatch, 0.2)
    mcp = build_mcp(service, lambda ctx: Access.write)
    answers: list[dict[str, Any]] = []

    async def session() -> None:
        to_server, server_reads = anyio.create_memory_object_stream[Any](10)
        server_writes, from_server = anyio.create_memory_object_stream[Any](10)

        async def answer() -> dict[str, Any]:
            item = await from_server.receive()
            dumped: dict[str, Any] = item.message.model_dump(by_alias=True, exclude_none=True)
            answers.append(dumped)
            return dumped

        async with anyio.create_task_group() as group:
            group.start_soon(run_watched, mcp, service, server_reads, server_writes)
            hello = {"protocolVersion": mcp_types.LATEST_PROTOCOL_VERSION, "capabilities": {}}
            hello["clientInfo"] = {"name": "test", "version": "0"}
            await to_server.send(_message({"id": 1, "method": "initialize", "params": hello}))
            assert (await answer())["id"] == 1
            await to_server.send(_message({"method": "notifications/initialized"}))
            await to_server.send(_message({"id": 2, "method": "tools/list"}))
            assert (await answer())["id"] == 2  # answered: not logged
            await to_server.send(_check(3))
            while not judged:
                await anyio.sleep(0.01)
            note = {"method": "notifications/cancelled", "params": {"requestId": 3, "reason": "bored"}}
            await to_server.send(_message(note))
            judged.clear()
            await to_server.send(_check(4))
            while not judged:
                await anyio.sleep(0.01)
            await to_server.aclose()  # the client closes the pipe while check 4 runs
            with anyio.fail_after(30):
                async for _ in from_server:
                    pass

    try:
        with caplog.at_level(logging.INFO, "kbsearch.serve"):
            anyio.run(session)
    finally:
        service.close()
    lines = [r.getMessage() for r in caplog.records if "cancelled after" in r.getMessage()]
    assert len(lines) == 2, caplog.text
    assert lines[0].startswith("MCP tools/call check (id 3) cancelled after") and "cancelled it (bored)" in lines[0]
    assert lines[1].startswith("MCP tools/call check (id 4) cancelled after") and "went away" in lines[1]
    assert all(a.get("id") not in (3, 4) for a in answers), answers
