"""An MCP agent connected over HTTP survives a restart of the server (a new user's
probe): the default one-process server kept MCP sessions in memory, so after a
restart the agent's next call, carrying its session id, got 404 "Session not found"
and the SDK client's task group died; only `--workers` ran stateless. Fake encoder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
from serve_support import build_index, running_server

HELLO = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
STATS = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "stats", "arguments": {}}}


def mcp_post(url: str, token: str, message: dict[str, Any], session: str | None) -> httpx.Response:
    """One JSON-RPC message as an MCP client sends it: with the session id the server gave, if any."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    if session is not None:
        headers["Mcp-Session-Id"] = session
    return httpx.post(f"{url}/mcp", json=message, headers=headers, timeout=30)


def test_an_mcp_client_goes_on_after_the_server_restarts(fake_models: Path, tmp_path: Path) -> None:
    index = build_index(tmp_path)
    with running_server(index, dict(os.environ)) as before:
        started = mcp_post(before.url, before.read_token, HELLO, None)
        assert started.status_code == 200, started.text
        session = started.headers.get("mcp-session-id")
        assert mcp_post(before.url, before.read_token, STATS, session).status_code == 200
    with running_server(index, dict(os.environ)) as after:  # the same index, served again
        answer = mcp_post(after.url, after.read_token, STATS, session)
    assert answer.status_code == 200 and '"records"' in answer.text and '"isError":true' not in answer.text, answer.text
