"""The CLI as a client of a real `kbsearch serve --http` process: the same output as a local
run, a CLI ingest seen by the running server, MCP over HTTP behind the token."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from serve_support import (
    BRIEFING,
    ROOT,
    Running,
    briefing_with_claims,
    build_index,
    normalized,
    running_server,
    write_rows,
)
from support.cli import run

from kbsearch.cli import main
from kbsearch.serve import listening_socket

LARGEST_CHECK = BRIEFING.split("## 增量 1")[0] + "".join(
    "## 增量 1" + briefing_with_claims(49).split("## 增量 1")[1].split("## 增量 2")[0].replace("增量 1", f"增量 {n}")
    for n in range(1, 11)
)
"""10 increments of 50 claims: the largest check the default limits take."""


def test_cli_output_through_the_server_is_the_local_output(
    served: tuple[Running, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, index = served
    briefing = tmp_path / "inbox" / "stephen" / "2026-09-21-inference-e1prep.md"
    briefing.parent.mkdir(parents=True)
    briefing.write_text(BRIEFING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    token_file = tmp_path / "token"
    token_file.write_text(server.read_token + "\n", encoding="utf-8")
    commands = [
        ["search", "TriAttention KV cache", "-k", "3"],
        ["search", "推测解码", "--mode", "lexical", "--instance", "spark"],
        ["check", "inbox/stephen/2026-09-21-inference-e1prep.md"],
        ["check", "inbox/stephen/2026-09-21-inference-e1prep.md", "--as-of", "2026-09-17"],
        ["show", "tri-spark"],
        ["similar", "tri-jay", "-k", "2"],
        ["explain", "tri-jay", "tri-spark", "--as-of", "2026-09-17"],
        ["stats"],
    ]
    for argv in commands:
        for output in ([], ["--json"]):
            local = run(capsys, *argv, *output, "--index", str(index), "--local")
            remote = run(capsys, *argv, *output, "--server", server.url, "--token-file", str(token_file))
            assert remote[0] == local[0], (argv, remote[2])
            assert normalized(remote[1]) == normalized(local[1]), argv
    # What the parser skipped, on stderr naming the file, through the server as locally.
    skipped = tmp_path / "2026-09-22-skipped.md"
    untitled = BRIEFING.replace("## 增量 2：GPU 作业健康检查新增按 rank 的 step 时间告警", "## 增量 2：")
    skipped.write_text(untitled, encoding="utf-8")
    warned = f"kbsearch: warning: {skipped}: line 13: increment without a title; skipped\n"
    local = run(capsys, "check", str(skipped), "--index", str(index), "--local")
    remote = run(capsys, "check", str(skipped), "--server", server.url, "--token-file", str(token_file))
    assert warned in local[2] and warned in remote[2]
    monkeypatch.setenv("KBSEARCH_SERVER", server.url)
    monkeypatch.setenv("KBSEARCH_TOKEN", server.read_token)
    monkeypatch.setattr("sys.stdin.read", lambda: "TriAttention frequency-domain KV cache compression\n10.7x less")
    code, out, _ = run(capsys, "check", "-", "--json")
    assert code == 1 and '"verdict": "DUPLICATE"' in out
    # Stdin named with --path is read as that file there too: its ids, its date and writer.
    named = "inbox/stephen/2026-09-21-inference-e1prep.md"
    monkeypatch.setattr("sys.stdin.read", lambda: BRIEFING)
    remote = json.loads(run(capsys, "check", "-", "--path", named, "--json")[1])
    local = json.loads(run(capsys, "check", named, "--json", "--index", str(index), "--local")[1])
    assert remote["input"] == named and [i["id"] for i in remote["items"]] == [i["id"] for i in local["items"]]


def test_the_client_says_what_went_wrong(
    served: tuple[Running, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, _ = served
    monkeypatch.delenv("KBSEARCH_TOKEN", raising=False)
    code, out, err = run(capsys, "stats", "--server", server.url)
    assert code == 2 and out == "" and "KBSEARCH_TOKEN" in err
    monkeypatch.setenv("KBSEARCH_TOKEN", "wrong")
    code, _, err = run(capsys, "search", "KV", "--server", server.url)
    assert code == 2 and "refused the token" in err
    assert server.logged("401 POST /api/search")
    monkeypatch.setenv("KBSEARCH_TOKEN", server.read_token)
    code, _, err = run(capsys, "show", "nope", "--server", server.url)
    assert code == 2 and "no record with id 'nope'" in err and err.count("\n") == 1
    code, _, err = run(capsys, "search", "KV", "--server", "http://127.0.0.1:9")
    assert code == 2 and "cannot reach the kbsearch server" in err


def test_a_cli_ingest_is_seen_by_the_running_server(
    served: tuple[Running, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, index = served
    monkeypatch.setenv("KBSEARCH_TOKEN", server.read_token)
    before = run(capsys, "search", "Mooncake disaggregated KV transfer", "--server", server.url, "--json")[1]
    assert '"id": "mooncake"' not in before
    source = write_rows(tmp_path / "more.jsonl", [{"id": "mooncake", "title": "Mooncake disaggregated KV transfer"}])
    assert main(["ingest", str(source), "--index", str(index)]) == 0
    after = run(capsys, "search", "Mooncake disaggregated KV transfer", "--server", server.url, "--json")[1]
    assert '"id": "mooncake"' in after
    stats = run(capsys, "stats", "--server", server.url, "--json")[1]
    assert '"records": 5' in stats and '"generation": 2' in stats
    assert main(["remove", "mooncake", "--index", str(index)]) == 0
    gone = run(capsys, "show", "mooncake", "--server", server.url)
    assert gone[0] == 2


def test_mcp_over_http_needs_the_token(served: tuple[Running, Path]) -> None:
    server, _ = served

    async def tools(token: str) -> list[str]:
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx.AsyncClient(headers=headers) as http,
            Client(streamable_http_client(f"{server.url}/mcp", http_client=http)) as client,
        ):
            found = await client.call_tool("search", {"query": "TriAttention", "k": 1})
            assert not found.is_error
            return [t.name for t in (await client.list_tools()).tools]

    assert "accept" in asyncio.run(tools(server.read_token))
    refused = httpx.post(f"{server.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert refused.status_code == 401


def test_a_real_server_answers_bad_requests_in_json_and_stops_a_check_left_behind(
    served: tuple[Running, Path],
) -> None:
    server, _ = served
    auth = {"Authorization": f"Bearer {server.read_token}", "Accept": "application/json, text/event-stream"}
    deep = b"[" * 100_000 + b"]" * 100_000
    for path, status in (("/api/search", 413), ("/api/check", 400), ("/mcp", 400), ("/nothing", 404)):
        answer = httpx.post(server.url + path, content=deep, headers={**auth, "Content-Type": "application/json"})
        assert answer.status_code == status and answer.headers["content-type"] == "application/json", path
    assert httpx.get(f"{server.url}/api/check", headers=auth).json()["error"].endswith("use POST")

    async def over_mcp() -> tuple[Any, Any]:
        async with (
            httpx.AsyncClient(headers={"Authorization": auth["Authorization"]}) as http,
            Client(streamable_http_client(f"{server.url}/mcp", http_client=http)) as client,
        ):
            nul = await client.call_tool("search", {"query": "TriAttention\0KV", "mode": "lexical"})
            big = await client.call_tool("search", {"query": "KV " * 2_000})
            return nul, big

    nul, big = asyncio.run(over_mcp())
    assert not nul.is_error and nul.structured_content["results"]
    assert big.is_error and "query_chars" in big.content[0].text
    # The largest check (a quarter of a second or more), its client gone after 0.05 s.
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"{server.url}/api/check", json={"text": LARGEST_CHECK}, headers=auth, timeout=0.05)
    assert server.logged("check stopped after", "the client went away")
    assert not any("Traceback" in line or "faiss" in line.lower() for line in server.log), server.log


def test_mcp_over_stdio(fake_models: Path, tmp_path: Path) -> None:
    """The stdio transport: nothing but protocol on stdout, every tool listed, a call answered."""
    from mcp import StdioServerParameters
    from serve_support import ROOT, TESTS

    index = build_index(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
    command = StdioServerParameters(
        command=sys.executable, args=["-m", "kbsearch", "serve", "--stdio", "--index", str(index)], env=env
    )

    async def session() -> tuple[list[str], dict[str, object]]:
        async with Client(command) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            stats = await client.call_tool("stats", {})
            assert not stats.is_error
            return names, stats.structured_content or {}

    names, stats = asyncio.run(session())
    assert {"search", "check", "accept", "show", "similar", "explain", "list", "stats"} == set(names)
    assert stats["records"] == 4 and stats["model"] == "fake"


def test_a_search_through_the_server_loads_no_index_or_model_code(served: tuple[Running, Path]) -> None:
    """The client path stays light: no SQLite, FAISS, numpy or model stack in the process."""
    import subprocess

    from serve_support import ROOT

    server, _ = served
    code = (
        "import sys\nfrom kbsearch.cli import main\n"
        "assert main(['search', 'TriAttention', '--server', sys.argv[1]]) == 0\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)"
    )
    env = {**os.environ, "KBSEARCH_TOKEN": server.read_token, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code, server.url], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "TriAttention" in done.stdout
    modules = {m.split(".")[0] for m in done.stderr.split()}
    assert "httpx" in modules and "kbsearch" in modules
    assert not modules & {"numpy", "faiss", "sqlite3", "torch", "sentence_transformers", "yaml", "textual"}


def test_the_socket_listens_before_the_server_says_so(
    fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that connects as soon as it reads 'listening on' is queued, not refused."""
    import socket

    import uvicorn

    from kbsearch.serve import ServeOptions, _serve_http

    connected: list[bool] = []

    def at_once(self: object, sockets: list[socket.socket]) -> None:  # stands in for uvicorn's start-up
        with socket.create_connection(sockets[0].getsockname(), timeout=5):
            connected.append(True)

    monkeypatch.setattr(uvicorn.Server, "run", at_once)
    options = ServeOptions(index=str(build_index(tmp_path)), model=None, stdio=False, http="127.0.0.1:0")
    assert _serve_http(options, "127.0.0.1", 0) == 0
    assert connected == [True]


def test_the_cli_finds_the_server_running_for_its_index(
    served: tuple[Running, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: a running server writes serve.json (0600) into its index folder; search, check, show
    and stats use it without --server and print what a local run prints; --local opts out."""
    server, index = served
    entry = index / "serve.json"
    assert entry.is_file() and (entry.stat().st_mode & 0o777) == 0o600
    assert server.url in entry.read_text()
    expected = run(capsys, "search", "TriAttention KV cache", "-k", "3", "--json", "--index", str(index), "--local")
    # A local run could not load the model now: only the server can answer.
    monkeypatch.setenv("KBSEARCH_MODELS", str(tmp_path / "no-models.txt"))
    code, out, err = run(capsys, "search", "TriAttention KV cache", "-k", "3", "--json", "--index", str(index))
    assert code == 0, err
    assert normalized(out) == normalized(expected[1])
    for argv in (["show", "tri-spark"], ["stats"]):
        assert run(capsys, *argv, "--index", str(index))[0] == 0
    code, _, err = run(capsys, "search", "TriAttention", "--index", str(index), "--local")
    assert code == 2 and "no-models.txt" in err


def test_a_stale_entry_is_ignored_and_named_by_doctor(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = build_index(tmp_path)
    with running_server(index, dict(os.environ)) as server:
        saved = (index / "serve.json").read_text()
        server.process.kill()  # no chance to remove its entry
        server.process.wait()
    (index / "serve.json").write_text(saved)
    code, out, err = run(capsys, "search", "TriAttention", "-k", "1", "--index", str(index))
    assert code == 0 and "tri-" in out, err
    code, out, _ = run(capsys, "doctor", "--index", str(index))
    assert code == 0 and "serve.json names a server" in out and "no longer running" in out


def test_a_stopped_server_takes_its_entry_away(fake_models: Path, tmp_path: Path) -> None:
    index = build_index(tmp_path)
    with running_server(index, dict(os.environ)):
        assert (index / "serve.json").is_file()
    assert not (index / "serve.json").exists()


def test_a_server_stopped_the_moment_its_entry_appears_takes_it_away(fake_models: Path, tmp_path: Path) -> None:
    """SIGTERM between writing serve.json and uvicorn taking the signals must still clean up."""
    index = build_index(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    argv = [sys.executable, "-m", "kbsearch", "serve", "--http", "127.0.0.1:0", "--index", str(index)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    deadline = time.monotonic() + 60
    while not (index / "serve.json").exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.0005)
    process.terminate()
    assert process.wait(timeout=60) == 0
    assert not (index / "serve.json").exists()


class _RecordingServer:
    def __init__(self) -> None:
        self.should_exit = False
        self.ran = False

    def run(self, sockets: object) -> None:
        self.ran = True


def test_a_sigterm_before_uvicorn_runs_skips_it_and_one_after_asks_it_to_stop() -> None:
    from kbsearch.serve import _StopOnSigterm

    early = _StopOnSigterm()
    early(signal.SIGTERM, None)  # must not raise: cleanup may be running where it lands
    server = _RecordingServer()
    with socket.socket() as sock:
        early.run(server, sock)
    assert not server.ran

    late = _StopOnSigterm()
    server = _RecordingServer()
    late.server = server
    late(signal.SIGTERM, None)
    assert server.should_exit


def test_the_server_s_connections_send_without_waiting_for_an_ack() -> None:
    """Nagle is off on each connection uvicorn accepts from the listening
    socket (asyncio's own accept path): with it on, an answer's body waited
    40 ms behind its headers for the client's delayed ACK, on every request."""

    async def nodelay_of_an_accepted_connection() -> int:
        sock = listening_socket("127.0.0.1", 0)
        seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            seen.set_result(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        async with await asyncio.start_server(accepted, sock=sock):
            _, client = await asyncio.open_connection(*sock.getsockname()[:2])
            value = await asyncio.wait_for(seen, 10)
            client.close()
        return value

    assert asyncio.run(nodelay_of_an_accepted_connection()) != 0
