"""A server that takes connections but answers nothing (hung, stopped with SIGSTOP), and
one that drops an accept mid-way.

A found server (``serve.json``) was used when its pid ran, and a hung one held
``search`` and ``check`` for the whole answer's wait (300 s); a named one did
the same in silence. A found server that died mid-accept got the named
server's hint ("drop --server", flags never given) and nothing on whether the
accept was stored.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from serve_support import BRIEFING, build_index
from support.cli import run

import kbsearch.cli.client as client


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("KBSEARCH_SERVER", raising=False)
    monkeypatch.delenv("KBSEARCH_TOKEN", raising=False)
    monkeypatch.setattr(client, "TIMEOUT", 8.0)  # the wait, cut short: a test fails, not hangs
    return build_index(tmp_path)


@pytest.fixture
def silent() -> Iterator[str]:
    """The URL of a socket that takes connections and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


def enter(index: Path, url: str) -> None:
    """``serve.json`` naming ``url``, with a pid that runs (this one), and tokens to send."""
    entry = {"url": url, "pid": os.getpid(), "started": "2026-09-20T08:00:00Z"}
    (index / "serve.json").write_text(json.dumps(entry))
    for name in ("serve-read.token", "serve-write.token"):
        (index / name).write_text("a-token-of-some-length-0123456789\n")
        (index / name).chmod(0o600)


def test_a_found_server_that_does_not_answer_is_skipped_with_a_note(
    index: Path, silent: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    enter(index, silent)
    code, out, err = run(capsys, "search", "TriAttention", "--index", str(index), "-k", "1")
    assert code == 0 and "TriAttention" in out, err
    note = f"note: the server in {index / 'serve.json'} (pid {os.getpid()}, {silent}) did not answer within 2 s"
    assert err.count(note) == 1 and "running on the local index" in err, err
    briefing = tmp_path / "2026-09-21-bob-inference-e1prep.md"
    briefing.write_text(BRIEFING, encoding="utf-8")
    code, out, err = run(capsys, "check", str(briefing), "--index", str(index))
    assert code in (0, 1) and "item" in out, err
    assert err.count(note) == 1, err  # asked once, though check looks for its server twice


def test_a_named_server_that_does_not_answer_is_said_to_after_a_bounded_wait(
    index: Path, silent: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client, "NAMED_WAIT", 1.0)
    monkeypatch.setenv("KBSEARCH_TOKEN", "a-token-of-some-length-0123456789")
    code, _, err = run(capsys, "stats", "--server", silent, "--index", str(index))
    assert code == 2, err
    assert f"the kbsearch server at {silent} does not answer: no answer to /health within 1 s" in err
    assert len(err.strip().splitlines()) == 1


class DropsTheAccept(BaseHTTPRequestHandler):
    """Answers /health as a kbsearch server does, and closes every POST unanswered."""

    def do_GET(self) -> None:
        body = json.dumps({"status": "ok", "records": 5}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.close_connection = True  # gone, as a server killed with -9

    def log_message(self, *args: object) -> None:
        pass


def test_a_found_server_gone_mid_accept_says_it_may_be_stored_and_how_to_go_on(
    index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), DropsTheAccept)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        enter(index, f"http://127.0.0.1:{server.server_address[1]}")
        briefing = tmp_path / "2026-09-21-bob-inference-e1prep.md"
        briefing.write_text(BRIEFING, encoding="utf-8")
        code, _, err = run(capsys, "check", str(briefing), "--accept", "--index", str(index))
    finally:
        server.shutdown()
        server.server_close()
    assert code == 2, err
    said = " ".join(err.split())
    assert "the accept may or may not have been stored" in said, said
    assert "sending the same input again is safe" in said
    assert "serve.json: run the command again, or pass --local" in said
    assert "--server" not in said  # the user gave no flag


def test_an_accept_sent_again_is_a_resubmission_and_changes_nothing(
    index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the hint above promises: the same input, accepted twice, is stored once."""
    briefing = tmp_path / "2026-09-21-bob-inference-e1prep.md"
    briefing.write_text(BRIEFING, encoding="utf-8")
    code, _, err = run(capsys, "check", str(briefing), "--accept", "--index", str(index), "--json")
    assert code == 0, err
    code, out, err = run(capsys, "check", str(briefing), "--accept", "--index", str(index), "--json")
    assert code == 0, err
    again = json.loads(out)
    assert again["items"] and all(item["resubmitted"] for item in again["items"])
    assert sorted(again["unchanged"]) == sorted(again["accepted"])


class HangsOnRequests(DropsTheAccept):
    """Answers /health as a kbsearch server does, then never answers a request (hung mid-way)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.server.stop.wait(30)  # type: ignore[attr-defined]


@pytest.fixture
def hangs() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), HangsOnRequests)
    server.daemon_threads = True
    server.stop = threading.Event()  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.stop.set()  # type: ignore[attr-defined]
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("found", [False, True])
def test_a_server_that_answers_health_then_hangs_on_the_request_is_said_to_after_a_bounded_wait(
    index: Path, hangs: str, found: bool, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It held the command for the whole answer's wait (300 s), then said to start a server that ran."""
    monkeypatch.setenv("KBSEARCH_SERVER_WAIT", "1")
    if found:
        enter(index, hangs)
    else:
        monkeypatch.setenv("KBSEARCH_TOKEN", "a-token-of-some-length-0123456789")
    named = [] if found else ["--server", hangs]
    code, out, err = run(capsys, "search", "TriAttention", "--index", str(index), *named)
    assert code == 2 and out == "", err
    [line] = err.strip().splitlines()
    assert f"the kbsearch server at {hangs} took the request and sent no answer within 1 s" in line
    assert "pass --local" in line and "$KBSEARCH_SERVER_WAIT (1 s now)" in line
    assert ("stop the server (its pid is in the index folder's serve.json)" if found else "restart the server") in line
    assert "start it with" not in line  # it runs: starting another is no fix


def test_the_default_wait_outlasts_a_servers_budget_and_not_five_minutes() -> None:
    """A request a server takes ends within its --budget (answered, or stopped with a 503): a
    legitimate one, the largest check its limits allow, is never cut at the default wait."""
    from kbsearch.serve.options import BUDGET

    assert 2 * BUDGET <= client.TIMEOUT < 300
