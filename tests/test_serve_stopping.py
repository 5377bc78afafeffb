"""A server stopped (SIGTERM) while a check or an accept runs answers 503 with
Retry-After and one JSON line, "the server is stopping … nothing was written",
and has stored nothing; the CLI says so. It used to answer uvicorn's plain-text
500 with a traceback in the log: uvicorn cancels what still runs 5 s after the
signal, and ``asyncio.CancelledError`` is no ``Exception``."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import FAKE_DEDUPE
from serve_support import (
    ROOT,
    TESTS,
    briefing_with_claims,
    build_index,
    held_request,
    running_server,
    service_for,
    slow_claims,
)

from kbsearch.kb import KnowledgeBase
from kbsearch.serve.http import build_app
from kbsearch.serve.service import Service
from kbsearch.serve.tokens import WRITE_TOKEN, Tokens


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    return build_index(tmp_path)


@pytest.fixture
def service(index: Path) -> Iterator[Service]:
    made = service_for(index)
    yield made
    made.close()


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Each claim a check judges takes 50 ms; the times they started."""
    return slow_claims(monkeypatch, 0.05)


def many_items(count: int) -> str:
    """A briefing of ``count`` increments, each its own item."""
    items = "".join(
        f"## 增量 {n}：Zeta{n} 新方法 KV cache variant {n}（⭐⭐⭐）\n\n- 来源：https://example.org/zeta{n}\n"
        f"- 要点：\n  - Zeta{n} 在 vLLM 上吞吐提升 {n}%\n  - 第 {n} 个变体把显存减少 {n} 倍\n- 可信度：中\n\n"
        for n in range(1, count + 1)
    )
    return f"# inference · E1 预消化简报(2026-09-21)\n\n执行： Stephen\n\n{items}本报告由 Stephen 实例自动生成\n"


def records(index: Path) -> int:
    with KnowledgeBase.open(str(index), "fake") as kb:
        return kb.stats().records


def _scope(body: bytes, token: str) -> dict[str, Any]:
    headers = [(b"authorization", f"Bearer {token}".encode()), (b"content-length", str(len(body)).encode())]
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/check",
        "raw_path": b"/api/check",
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }


def test_an_accept_cut_short_by_the_grace_period_answers_503_and_stores_nothing(
    service: Service, index: Path, judged: list[float], caplog: pytest.LogCaptureFixture
) -> None:
    """What uvicorn does on SIGTERM: tell the server (``handle_exit``), then cancel
    the request's task when its grace period is over; here at once."""
    tokens, _ = Tokens.in_folder(index)
    app = build_app(service, tokens, host="127.0.0.1")
    body = json.dumps({"text": briefing_with_claims(40), "accept": True}).encode()  # 2 s of claims
    before = records(index)
    judged.clear()

    async def stop_while_it_runs() -> list[dict[str, Any]]:
        held = held_request(app, _scope(body, (index / WRITE_TOKEN).read_text().strip()), body)
        while not judged:
            await asyncio.sleep(0.01)
        service.stopping()
        held.task.cancel("Task cancelled, timeout graceful shutdown exceeded")
        await asyncio.wait_for(held.task, 10)
        return held.sent

    sent = asyncio.run(stop_while_it_runs())
    start, content = sent[0], json.loads(sent[1]["body"])
    assert start["status"] == 503 and (b"retry-after", b"10") in start["headers"]
    assert "the server is stopping" in content["error"] and "nothing was written" in content["error"]
    assert "\n" not in content["error"] and len(judged) < 40
    assert records(index) == before
    assert not [r for r in caplog.records if r.levelname == "ERROR" or r.exc_info]


def test_sigterm_during_an_accept_answers_503_and_the_cli_says_so(fake_models: Path, tmp_path: Path) -> None:
    """The real server, stopped with SIGTERM while a slow accept runs (the fake model
    taking 30 ms a text), with the CLI finding it through serve.json."""
    index = build_index(tmp_path)
    before = records(index)
    slow = tmp_path / "slow-models.txt"
    slow.write_text(f"fake python:fake_encoder:slow dim=64 dedupe={FAKE_DEDUPE}\n", encoding="utf-8")
    env = {**os.environ, "KBSEARCH_MODELS": str(slow)}
    briefing = tmp_path / "2026-09-21.md"
    briefing.write_text(many_items(40), encoding="utf-8")
    with running_server(index, env) as server:
        cli_env = {**env, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
        argv = [sys.executable, "-m", "kbsearch", "check", str(briefing), "--accept", "--index", str(index)]
        cli = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env, cwd=ROOT)
        # The CLI's cold start takes seconds on a busy machine: the signal waits for the accept to run.
        began = server.logged("check --accept of", ": started", timeout=60)
        assert began, f"no accept began on the server within 60 s (the CLI: {_state(cli)}):\n" + "".join(server.log)
        assert cli.poll() is None, cli.communicate()  # its check takes far longer than this
        server.process.send_signal(signal.SIGTERM)
        out, err = cli.communicate(timeout=60)
        assert server.process.wait(timeout=60) == 0
    assert cli.returncode == 2 and out == "", (cli.returncode, err, out[-2000:])
    assert err.startswith("kbsearch: stopped: the server is stopping; nothing was written") and err.count("\n") == 1
    assert "send it again" in err
    log = "".join(server.log)
    assert "Traceback" not in log and "CancelledError" not in log, log
    assert records(index) == before


def _state(process: subprocess.Popen[str]) -> str:
    """Whether the process still runs, else its exit code and what it printed."""
    if process.poll() is None:
        return "still running"
    out, err = process.communicate()
    return f"exited {process.returncode}, stdout {out!r}, stderr {err!r}"


def test_a_request_to_a_stopping_server_answers_503_with_retry_after(service: Service, index: Path) -> None:
    tokens, _ = Tokens.in_folder(index)
    service.stopping()
    transport = httpx.ASGITransport(app=build_app(service, tokens, host="127.0.0.1"))  # type: ignore[arg-type]
    auth = {"Authorization": f"Bearer {(index / WRITE_TOKEN).read_text().strip()}"}

    async def ask() -> httpx.Response:
        async with httpx.AsyncClient(transport=transport, base_url="http://x", headers=auth) as client:
            return await client.post("/api/check", json={"text": briefing_with_claims(2), "accept": True})

    answer = asyncio.run(ask())
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "10"
    assert "the server is stopping; nothing was written" in answer.json()["error"]
