"""Helpers for the server tests: a small index, an in-process service, a real server process."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from conftest import FAKE_DEDUPE

from fake_encoder import FakeEncoder
from kbsearch.cli import main
from kbsearch.models import ModelSpec

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
FAKE = ModelSpec(name="fake", source="python:fake_encoder:make", dim=64, dedupe=str(FAKE_DEDUPE))
ROWS = [
    {"id": "tri-jay", "title": "TriAttention frequency-domain KV cache compression", "text": "10.7x less KV memory",
     "instance": "jay", "date": "2026-09-17", "topic": "inference"},
    {"id": "tri-spark", "title": "TriAttention trigonometric KV cache compression",
     "text": "roughly 10x less KV memory", "instance": "spark", "date": "2026-09-18", "topic": "inference"},
    {"id": "card", "kind": "paper_card", "title": "When2Think difficulty-aware length control",
     "text": "arXiv:2609.19671 length control for hybrid reasoning", "date": "2026-09-19"},
    {"id": "suffix", "title": "SGLang suffix decoding", "text": "训练无关的推测解码", "instance": "spark",
     "date": "2026-09-18"},
]  # fmt: skip
BRIEFING = """\
# inference · E1 预消化简报(2026-09-21)

执行： Stephen

## 增量 1：TriAttention 合入 TensorRT-LLM（⭐⭐⭐⭐）

- 来源：https://github.com/WeianMao/triattention
- 要点：
  - TriAttention 把 KV cache 变换到三角函数基底上压缩，显存减少 10.7 倍
  - 已合入 TensorRT-LLM 主干
- 可信度：高

## 增量 2：GPU 作业健康检查新增按 rank 的 step 时间告警（⭐⭐⭐）

- 来源：内部实践
- 要点：
  - 每个 rank 的 step 时间超过中位数 1.5 倍即告警
- 可信度：中

本报告由 Stephen 实例自动生成
"""


def briefing_with_claims(claims: int) -> str:
    """BRIEFING whose first increment has ``claims`` key points (要点) (the parser adds its 可信度 line)."""
    lines = "".join(f"  - 第 {n} 条：TriAttention 把 KV cache 压缩 {n} 倍\n" for n in range(claims))
    first = "  - TriAttention 把 KV cache 变换到三角函数基底上压缩，显存减少 10.7 倍\n  - 已合入 TensorRT-LLM 主干\n"
    assert first in BRIEFING
    return BRIEFING.replace(first, lines)


def write_rows(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def build_index(folder: Path) -> Path:
    """An index of ROWS made with the fake model (the caller sets KBSEARCH_MODELS)."""
    source = write_rows(folder / "rows.jsonl", ROWS)
    index = folder / "idx"
    assert main(["ingest", str(source), "--index", str(index)]) == 0
    return index


def service_for(index: Path, **options: object):  # type: ignore[no-untyped-def]
    from kbsearch.serve.service import Service

    return Service(index, FAKE, encoder=FakeEncoder(), **options)  # type: ignore[arg-type]


class AsgiClient:
    """Requests to an ASGI app in this process, each in its own event loop."""

    def __init__(self, app: object) -> None:
        self.transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        async def go() -> httpx.Response:
            async with httpx.AsyncClient(transport=self.transport, base_url="http://127.0.0.1") as client:
                return await client.request(method, url, **kwargs)

        return asyncio.run(go())

    def post(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", url, **kwargs)

    def get(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", url, **kwargs)


def normalized(text: str) -> str:
    """Output with the run's own timings taken out (they differ between any two runs)."""
    text = re.sub(r'"seconds": [0-9.e-]+', '"seconds": 0', text)
    return re.sub(r"\d+ ms,", "N ms,", text)


@dataclass
class Running:
    url: str
    process: subprocess.Popen[str]
    read_token: str
    write_token: str
    log: list[str]
    """The server's stderr lines from its start, read as they come (so the pipe never fills)."""

    def logged(self, *words: str, timeout: float = 10.0) -> bool:
        """Whether a line of the log holds every one of ``words``, waiting for
        it a while: the log is read by another thread, after the answer."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(all(w in line for w in words) for line in self.log):
                return True
            time.sleep(0.05)
        return False


@contextmanager
def running_server(index: Path, env: dict[str, str], *extra: str) -> Iterator[Running]:
    """``kbsearch serve --http 127.0.0.1:0`` in its own process, stopped afterwards."""
    env = {**env, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS), env.get("PYTHONPATH", "")])}
    process = subprocess.Popen(
        [sys.executable, "-m", "kbsearch", "serve", "--http", "127.0.0.1:0", "--index", str(index), *extra],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        log: list[str] = []  # from its first line
        url = _wait_for_url(process, log)
        threading.Thread(target=_drain, args=(process, log), daemon=True).start()
        yield Running(
            url,
            process,
            (index / "serve-read.token").read_text().strip(),
            (index / "serve-write.token").read_text().strip(),
            log,
        )
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)  # a busy machine: its cleanup must run, not a kill
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_for_url(process: subprocess.Popen[str], seen: list[str]) -> str:
    assert process.stderr is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line and process.poll() is not None:
            break
        seen.append(line)
        found = re.search(r"listening on (http://\S+) ", line)
        if found:
            return found.group(1)
    raise AssertionError("the server did not start:\n" + "".join(seen))


def _drain(process: subprocess.Popen[str], log: list[str]) -> None:
    assert process.stderr is not None
    for line in process.stderr:
        log.append(line)


def slow_claims(monkeypatch: Any, seconds: float) -> list[float]:
    """Each claim a check judges takes ``seconds``: the times they started, for tests of
    what a server does while a check runs (cut short, refused, stopped)."""
    import kbsearch.dedupe.check as check

    started: list[float] = []
    real = check.judge_claim

    def slow(*args: Any, **kwargs: Any) -> Any:
        started.append(time.monotonic())
        time.sleep(seconds)
        return real(*args, **kwargs)

    monkeypatch.setattr(check, "judge_claim", slow)
    return started


@dataclass
class HeldRequest:
    """A request to an ASGI app whose client stays until ``leave`` (then disconnects);
    run in the test's event loop. ``sent``: what the app sent back."""

    task: asyncio.Future[Any]
    sent: list[dict[str, Any]]
    gone: asyncio.Event

    def leave(self) -> None:
        self.gone.set()


def held_request(app: Any, scope: dict[str, Any], body: bytes) -> HeldRequest:
    messages = [{"type": "http.request", "body": body, "more_body": False}]
    gone = asyncio.Event()
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop(0)
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    return HeldRequest(asyncio.ensure_future(app(scope, receive, send)), sent, gone)
