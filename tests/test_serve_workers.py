"""`kbsearch serve --http --workers N`: N processes on one socket, supervised by a parent
that loads no model, replaces a worker that dies and stops them all together."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from serve_support import ROWS, Running, build_index, running_server

from kbsearch.cli import main


def children(pid: int) -> set[int]:
    """The live processes whose parent is ``pid``, from /proc."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == str(pid) and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(condition, seconds: float = 30.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def health_pid(url: str) -> int:
    """The pid of the worker that answered ``/health`` on a new connection."""
    answer = httpx.get(f"{url}/health", timeout=30, headers={"Connection": "close"})
    answer.raise_for_status()
    return int(answer.json()["pid"])


@pytest.fixture
def two_workers(fake_models: Path, tmp_path: Path) -> Iterator[tuple[Running, Path]]:
    index = build_index(tmp_path)
    with running_server(index, dict(os.environ), "--workers", "2") as server:
        yield server, index


def test_two_workers_answer_and_the_parent_loads_no_model(two_workers: tuple[Running, Path]) -> None:
    server, index = two_workers
    workers = children(server.process.pid)
    assert len(workers) == 2
    # Concurrent requests on new connections: an idle worker takes the next one.
    with ThreadPoolExecutor(8) as pool:
        answered = set(pool.map(lambda _: health_pid(server.url), range(64)))
    assert answered == workers
    assert server.logged("listening on", "with 2 worker processes")
    # Each worker says it loads the model; the parent never does.
    assert sum("loading fake" in line for line in server.log) == 2
    entry = (index / "serve.json").read_text()
    assert f'"pid":{server.process.pid}' in entry


def test_an_accept_by_one_worker_is_seen_by_every_worker(two_workers: tuple[Running, Path]) -> None:
    server, _ = two_workers
    workers = children(server.process.pid)
    record = '{"id": "moe-new", "title": "MoE expert offloading to NVMe", "text": "专家权重按需从 NVMe 读取"}'
    write = {"Authorization": f"Bearer {server.write_token}"}
    answer = httpx.post(
        f"{server.url}/api/check", json={"text": record, "path": "new.jsonl", "accept": True}, headers=write, timeout=60
    )
    assert answer.status_code == 200 and answer.json()["accepted"] == ["moe-new"], answer.text

    def records_seen(_: int) -> tuple[int, int]:
        health = httpx.get(f"{server.url}/health", timeout=30, headers={"Connection": "close"}).json()
        return int(health["pid"]), int(health["records"])

    with ThreadPoolExecutor(8) as pool:
        seen = list(pool.map(records_seen, range(64)))
    assert {pid for pid, _ in seen} == workers
    assert {records for _, records in seen} == {len(ROWS) + 1}


def test_a_worker_that_dies_is_replaced(two_workers: tuple[Running, Path]) -> None:
    server, _ = two_workers
    first = children(server.process.pid)
    victim = min(first)
    os.kill(victim, signal.SIGKILL)
    assert server.logged(f"worker {victim} ended (killed by a signal); starting another", timeout=30)
    assert wait_until(lambda: len(children(server.process.pid)) == 2 and victim not in children(server.process.pid))
    assert wait_until(lambda: health_pid(server.url) > 0)


def test_sigterm_stops_every_worker_and_removes_the_entry(fake_models: Path, tmp_path: Path) -> None:
    index = build_index(tmp_path)
    with running_server(index, dict(os.environ), "--workers", "2") as server:
        workers = children(server.process.pid)
        assert len(workers) == 2
        server.process.terminate()
        assert server.process.wait(timeout=60) == 0
    assert not any(alive(pid) for pid in workers)
    assert not (index / "serve.json").exists()


def test_workers_stop_when_their_parent_is_killed(fake_models: Path, tmp_path: Path) -> None:
    index = build_index(tmp_path)
    with running_server(index, dict(os.environ), "--workers", "2") as server:
        workers = children(server.process.pid)
        server.process.kill()  # no chance to stop them
        server.process.wait()
        assert wait_until(lambda: not any(alive(pid) for pid in workers), seconds=30)


def test_workers_need_http(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = build_index(tmp_path)
    assert main(["serve", "--stdio", "--workers", "2", "--index", str(index)]) == 2
    assert "--workers applies to --http only" in capsys.readouterr().err
    assert main(["serve", "--http", "127.0.0.1:0", "--workers", "0", "--index", str(index)]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err


def test_a_worker_that_fails_at_start_stops_the_start_with_its_exit_code() -> None:
    """A worker that cannot load its models ends before it is ready: the parent
    reports its exit code (2 for a KbError), or 1 when a signal ended it."""
    from kbsearch.serve.workers import Supervisor

    failing = Supervisor(2, lambda link: 2, lambda: False)
    assert failing.start() == 2
    failing.stop()

    def killed_at_start(link: object) -> int:
        os.kill(os.getpid(), signal.SIGKILL)
        return 0

    killed = Supervisor(1, killed_at_start, lambda: False)
    assert killed.start() == 1
    killed.stop()


def mcp_post(url: str, token: str, message: dict, session: str | None = None) -> httpx.Response:  # type: ignore[type-arg]
    """One JSON-RPC message to the MCP endpoint, on a new connection."""
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Connection": "close",
    }
    if session is not None:
        headers["Mcp-Session-Id"] = session
    return httpx.post(f"{url}/mcp", json=message, headers=headers, timeout=30)


def test_an_mcp_client_is_answered_by_whichever_worker_takes_its_request(two_workers: tuple[Running, Path]) -> None:
    """A session kept by one worker is unknown to the other: an MCP client whose next
    request reached the other worker got 'session not found'. With workers, every MCP
    request stands alone."""
    server, _ = two_workers
    hello = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    started = mcp_post(server.url, server.read_token, hello)
    assert started.status_code == 200, started.text
    session = started.headers.get("mcp-session-id")

    def list_tools(n: int) -> tuple[int, str]:
        answer = mcp_post(server.url, server.read_token, {"jsonrpc": "2.0", "id": n, "method": "tools/list"}, session)
        return answer.status_code, answer.text

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(list_tools, range(1, 33)))
    assert all(status == 200 and '"search"' in text for status, text in answers), answers[:3]
