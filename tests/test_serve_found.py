"""The server found through the index folder (``serve.json``): one per index, and used with
the token the user gave.

A second ``serve --http`` on an index whose server runs and answers is refused: it
used to start, replace the first one's entry and delete it on stopping, so that
commands without flags no longer found the first server, which still ran. A found
server is asked with ``$KBSEARCH_TOKEN`` (or ``--token-file``) when the user gives
one: a read token could accept through the folder's write token.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from serve_support import ROOT, TESTS, Running, build_index, running_server
from support.cli import run

from kbsearch.cli import main
from kbsearch.kb import KnowledgeBase


def serve_again(index: Path, timeout: float = 90.0, address: str = "127.0.0.1:0") -> tuple[int | None, str]:
    """A second ``serve --http`` on ``index``: its exit code (None: it kept running, and was
    stopped) and its stderr."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
    argv = [sys.executable, "-m", "kbsearch", "serve", "--http", address, "--index", str(index)]
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


def test_an_entry_whose_process_is_gone_is_replaced_and_the_log_says_so(fake_models: Path, tmp_path: Path) -> None:
    index = build_index(tmp_path)
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = {"url": "http://127.0.0.1:9", "pid": gone.pid, "started": "2026-09-20T08:00:00Z"}
    (index / "serve.json").write_text(json.dumps(stale))
    with running_server(index, dict(os.environ)) as server:
        assert server.logged("no longer runs", f"pid {gone.pid}", "replaces it")


def test_a_start_that_fails_leaves_no_token_files_it_created(fake_models: Path, tmp_path: Path) -> None:
    """The address in use: the start failed, and its new token files stayed in the folder."""
    index = build_index(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        before = sorted(p.name for p in index.iterdir())
        code, err = serve_again(index, address=address)
        assert code == 2 and "cannot listen" in err, err
        assert sorted(p.name for p in index.iterdir()) == before
        (index / "serve-read.token").write_text("a-read-token-of-some-length-0123\n")
        (index / "serve-read.token").chmod(0o600)
        code, err = serve_again(index, address=address)
        assert code == 2, err
        assert (index / "serve-read.token").read_text() == "a-read-token-of-some-length-0123\n"  # not this start's
        assert not (index / "serve-write.token").exists()


def stored(index: Path) -> int:
    with KnowledgeBase.open(str(index)) as kb:
        return kb.stats().records


def test_a_found_server_is_asked_with_the_users_token(
    served: tuple[Running, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """$KBSEARCH_TOKEN holding the read token may not accept through a server found without a flag."""
    server, index = served
    briefing = tmp_path / "2026-09-21-stephen-inference-e1prep.md"
    briefing.write_text(NEW_ITEMS, encoding="utf-8")
    before = stored(index)
    models = os.environ["KBSEARCH_MODELS"]
    # A local run could not load the model now: every answer below is the found server's.
    monkeypatch.setenv("KBSEARCH_MODELS", str(tmp_path / "no-models.txt"))
    monkeypatch.delenv("KBSEARCH_SERVER", raising=False)
    monkeypatch.setenv("KBSEARCH_TOKEN", server.read_token)
    code, out, err = run(capsys, "check", str(briefing), "--accept", "--index", str(index))
    assert code == 2 and "accepting needs the write token" in err, (out, err)
    code, out, err = run(capsys, "check", str(briefing), "--index", str(index))  # the read token reads
    assert code == 0 and "NEW" in out, err
    monkeypatch.setenv("KBSEARCH_TOKEN", "not-a-token-of-this-server")
    code, _, err = run(capsys, "stats", "--index", str(index))
    assert code == 2 and "refused the token" in err
    token_file = tmp_path / "write.token"
    token_file.write_text(server.write_token + "\n")
    code, out, err = run(capsys, "stats", "--index", str(index), "--token-file", str(token_file))
    assert code == 0, err  # --token-file is the user's token too, over $KBSEARCH_TOKEN
    monkeypatch.delenv("KBSEARCH_TOKEN")
    code, out, err = run(capsys, "check", str(briefing), "--accept", "--index", str(index))
    assert code == 0, err  # no token given: the folder's (the write token) may accept
    monkeypatch.setenv("KBSEARCH_MODELS", models)
    assert stored(index) == before + 2


NEW_ITEMS = """\
# inference · E1 预消化简报(2026-09-21)

执行： Stephen

## 增量 1：Photonic interconnect pilot for rack-scale inference（⭐⭐⭐）

- 要点：
  - a photonic link carries 1.6 Tb/s between two racks in the pilot

## 增量 2：Zero-copy tokenizer service for batch jobs（⭐⭐）

- 要点：
  - tokenizing moves to a shared-memory service, 40% less CPU per batch

本报告由 Stephen 实例自动生成
"""


def test_doctor_names_an_entry_whose_pid_runs_but_is_no_kbsearch_server(
    served: tuple[Running, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A pid reused by another program (here ``sleep``): commands ran locally and doctor said nothing."""
    _, index = served
    assert main(["doctor", "--index", str(index)]) == 0
    assert "serve.json" not in capsys.readouterr().out  # the server itself answers: nothing to say
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    entry = json.loads((index / "serve.json").read_text())
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        entry.update(pid=sleeper.pid, url=f"http://127.0.0.1:{port}")
        (index / "serve.json").write_text(json.dumps(entry))
        assert main(["doctor", "--index", str(index)]) == 0
        out = " ".join(capsys.readouterr().out.split())
    finally:
        sleeper.kill()
        sleeper.wait()
    assert f"pid {sleeper.pid} runs, but http://127.0.0.1:{port} does not answer as a kbsearch server" in out
    assert f"delete {index / 'serve.json'}" in out
