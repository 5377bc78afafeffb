"""SIGTERM to ``kbsearch serve`` during an MCP call over streamable HTTP: the call
answers a ``stopped`` tool error, as the JSON API answers 503 with ``stopped``, and
the server ends promptly. The stream used to end with no answer (the client saw a
dropped connection) and the server lingered for seconds after the signal."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import FAKE_DEDUPE
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from serve_support import briefing_with_claims, build_index, held_request, running_server, service_for, slow_claims
from test_serve_stopping import many_items, records

from kbsearch.serve.http import build_app
from kbsearch.serve.tokens import READ_TOKEN, Tokens


def test_sigterm_during_an_mcp_accept_answers_stopped_and_the_server_ends_promptly(
    fake_models: Path, tmp_path: Path
) -> None:
    index = build_index(tmp_path)
    before = records(index)
    slow = tmp_path / "slow-models.txt"
    slow.write_text(f"fake python:fake_encoder:slow dim=64 dedupe={FAKE_DEDUPE}\n", encoding="utf-8")
    started = tmp_path / "encoding"
    env = {**os.environ, "KBSEARCH_MODELS": str(slow), "FAKE_ENCODER_STARTED": str(started)}
    with running_server(index, env) as server:
        started.unlink(missing_ok=True)  # the warm-up's

        async def accept_then_stop() -> tuple[Any, float]:
            headers = {"Authorization": f"Bearer {server.write_token}"}
            async with (
                httpx.AsyncClient(headers=headers, timeout=60) as http,
                Client(streamable_http_client(f"{server.url}/mcp", http_client=http)) as client,
            ):
                call = asyncio.ensure_future(client.call_tool("accept", {"text": many_items(40), "path": "a.md"}))
                while not started.exists():
                    await asyncio.sleep(0.05)
                await asyncio.sleep(0.5)
                assert not call.done()
                signalled = time.monotonic()
                server.process.send_signal(signal.SIGTERM)
                answer = await call
                await asyncio.to_thread(server.process.wait, 60)
                return answer, time.monotonic() - signalled

        answer, took = asyncio.run(accept_then_stop())
    assert answer.is_error, answer
    assert answer.content[0].text.startswith("stopped: stopped: the server is stopping"), answer.content[0].text
    assert server.process.returncode == 0 and took < 2.0, took
    assert records(index) == before
    assert "Traceback" not in "".join(server.log)


def _mcp_scope(body: bytes, token: str) -> dict[str, Any]:
    headers = [
        (b"host", b"127.0.0.1:8765"),
        (b"authorization", f"Bearer {token}".encode()),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        (b"content-length", str(len(body)).encode()),
    ]
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": "/mcp", "raw_path": b"/mcp", "query_string": b"", "root_path": "", "headers": headers,
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 80),
    }  # fmt: skip


def _events(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    stream = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body").decode()
    return [json.loads(line[5:]) for line in stream.splitlines() if line.startswith("data:") and line[5:].strip()]


def test_an_mcp_call_the_grace_period_cuts_short_is_answered_stopped_on_its_stream(
    fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """uvicorn cancels the request once its grace period is over, while the job has not
    reached its next checkpoint (here a claim taking 2 s): the stream still carries the
    stopped error before it closes, and the log says which call was stopped."""
    index = build_index(tmp_path)
    service = service_for(index)
    judged = slow_claims(monkeypatch, 2.0)
    try:
        tokens, _ = Tokens.in_folder(index)
        gate = build_app(service, tokens, host="127.0.0.1")
        inner = gate.app.app  # type: ignore[attr-defined]
        call = {"name": "check", "arguments": {"text": briefing_with_claims(3)}}
        body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call}).encode()
        judged.clear()

        async def stop_while_it_runs() -> list[dict[str, Any]]:
            async with inner.router.lifespan_context(inner):
                held = held_request(gate, _mcp_scope(body, (index / READ_TOKEN).read_text().strip()), body)
                for _ in range(500):
                    if judged or held.task.done():
                        break
                    await asyncio.sleep(0.01)
                assert judged, held.sent
                service.stopping()
                held.task.cancel("Task cancelled, timeout graceful shutdown exceeded")
                await asyncio.wait_for(held.task, 10)
                return held.sent

        with caplog.at_level(logging.INFO, "kbsearch.serve"):
            sent = asyncio.run(stop_while_it_runs())
    finally:
        service.close()
    assert sent[-1] == {"type": "http.response.body", "body": sent[-1]["body"], "more_body": False}
    answer = _events(sent)[-1]
    assert answer["id"] == 7 and answer["result"]["isError"], answer
    text = answer["result"]["content"][0]["text"]
    assert text.startswith("stopped: stopped: the server is stopping; nothing was written"), text
    assert answer["result"]["_meta"]["kbsearch/error"]["retry_after"] == 10
    assert "MCP tools/call check (id 7): stopped after" in caplog.text, caplog.text


def test_an_mcp_call_its_client_gives_up_is_logged(
    fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A call whose client sends notifications/cancelled, and one whose client goes away:
    the log names each (method, tool, id) and how long it ran, as the JSON API's."""
    index = build_index(tmp_path)
    service = service_for(index)
    judged = slow_claims(monkeypatch, 0.2)
    try:
        tokens, _ = Tokens.in_folder(index)
        gate = build_app(service, tokens, host="127.0.0.1")
        inner = gate.app.app  # type: ignore[attr-defined]
        token = (index / READ_TOKEN).read_text().strip()

        def rpc(message: dict[str, Any]) -> bytes:
            return json.dumps({"jsonrpc": "2.0", **message}).encode()

        def check(n: int) -> bytes:
            arguments = {"text": briefing_with_claims(20)}
            return rpc({"id": n, "method": "tools/call", "params": {"name": "check", "arguments": arguments}})

        async def give_up() -> None:
            async with inner.router.lifespan_context(inner):
                for n, cancel in ((3, True), (4, False)):
                    judged.clear()
                    held = held_request(gate, _mcp_scope(check(n), token), check(n))
                    while not judged:
                        await asyncio.sleep(0.01)
                    if cancel:
                        note = rpc({"method": "notifications/cancelled", "params": {"requestId": n, "reason": "bored"}})
                        await held_request(gate, _mcp_scope(note, token), note).task
                    held.leave()
                    await asyncio.wait_for(held.task, 10)

        with caplog.at_level(logging.INFO, "kbsearch.serve"):
            asyncio.run(give_up())
    finally:
        service.close()
    lines = [r.getMessage() for r in caplog.records if "cancelled after" in r.getMessage()]
    assert len(lines) == 2, caplog.text
    assert lines[0].startswith("MCP tools/call check (id 3) cancelled after") and "cancelled it (bored)" in lines[0]
    assert lines[1].startswith("MCP tools/call check (id 4) cancelled after") and "went away" in lines[1]
