"""The server found through the index folder (``serve.json``): one per index.

A second ``serve --http`` on an index whose server runs and answers is refused: it
used to start, replace the first one's entry and delete it on stopping, so that
commands without flags no longer found the first server, which still ran.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import ROOT, TESTS, Running, build_index, running_server


@pytest.fixture
def served(fake_models: Path, tmp_path: Path) -> Iterator[tuple[Running, Path]]:
    index = build_index(tmp_path)
    with running_server(index, dict(os.environ)) as server:
        yield server, index


def serve_again(index: Path, timeout: float = 90.0) -> tuple[int | None, str]:
    """A second ``serve --http`` on ``index``: its exit code (None: it kept running, and was
    stopped) and its stderr."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
    argv = [sys.executable, "-m", "kbsearch", "serve", "--http", "127.0.0.1:0", "--index", str(index)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        _, err = process.communicate(timeout=timeout)
        return process.returncode, err
    except subprocess.TimeoutExpired:
        process.terminate()
        _, err = process.communicate(timeout=60)
        return None, err


def test_a_second_server_on_a_served_index_is_refused_and_the_first_stays_found(
    served: tuple[Running, Path],
) -> None:
    server, index = served
    entry = (index / "serve.json").read_text()
    code, err = serve_again(index)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert f"pid {server.process.pid}" in lines[0] and server.url in lines[0] and "already" in lines[0]
    assert "stop it" in lines[0]
    assert (index / "serve.json").read_text() == entry  # the first server is still the one found


def test_an_entry_whose_process_runs_but_does_not_answer_is_replaced(fake_models: Path, tmp_path: Path) -> None:
    """A pid reused by another program, or a server that hangs: the new server takes the entry, and says so."""
    index = build_index(tmp_path)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    stale = {"url": f"http://127.0.0.1:{port}", "pid": os.getpid(), "started": "2026-09-20T08:00:00Z"}
    (index / "serve.json").write_text(json.dumps(stale))
    with running_server(index, dict(os.environ)) as server:
        assert server.logged("does not answer", f"pid {os.getpid()}")
        assert json.loads((index / "serve.json").read_text())["pid"] == server.process.pid
    assert not (index / "serve.json").exists()
