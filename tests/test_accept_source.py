"""One text accepted through the server, the CLI or an ingest is one item (probe 12).

The CLI resolves ``check - --path FILE`` (as ingest resolves a file); the
server stored the client's ``path`` as sent: the record's source flipped
between ``inbox/…`` and ``/abs/inbox/…`` with each interface, so no resend was
ever seen as unchanged, every one a new generation. Now a path names the
file as ingest names it, a relative one resolved against the server's
working directory.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import BRIEFING, AsgiClient, build_index, service_for
from support.cli import run

from kbsearch.kb import KnowledgeBase
from kbsearch.serve.http import build_app
from kbsearch.serve.service import Service
from kbsearch.serve.tokens import WRITE_TOKEN, Tokens

NAME = "inbox/stephen/2026-09-21-inference-e1prep.md"


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    return build_index(tmp_path)


@pytest.fixture
def service(index: Path) -> Iterator[Service]:
    service = service_for(index, lock_timeout=5.0)
    yield service
    service.close()


def generation(index: Path) -> int:
    with KnowledgeBase.open(index) as kb:
        return kb.stats().generation


def test_a_resend_through_another_interface_is_unchanged(
    service: Service,
    index: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # the server's working directory, and the CLI's
    tokens, _ = Tokens.in_folder(index)
    client = AsgiClient(build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024))
    auth = {"Authorization": f"Bearer {(index / WRITE_TOKEN).read_text().strip()}"}
    body = {"text": BRIEFING, "path": NAME, "accept": True}
    first = client.post("/api/check", json=body, headers=auth).json()
    assert len(first["accepted"]) == 2 and first["unchanged"] == []
    stored = client.post("/api/show", json={"id": first["accepted"][0]}, headers=auth).json()
    assert stored["source"] == str(tmp_path / NAME)  # as ingest and 'check - --path' name the file
    after = generation(index)
    # The CLI's gate, the same text and path: a resubmission, nothing written.
    monkeypatch.setattr("sys.stdin.read", lambda: BRIEFING)
    code, out, err = run(capsys, "check", "-", "--path", NAME, "--accept", "--index", str(index), "--json")
    assert code == 0, err
    assert len(json.loads(out)["unchanged"]) == 2 and generation(index) == after
    # And back through the server.
    again = client.post("/api/check", json=body, headers=auth).json()
    assert len(again["unchanged"]) == 2 and generation(index) == after
    # The file published from the text, ingested later, holds nothing new.
    (tmp_path / NAME).parent.mkdir(parents=True)
    (tmp_path / NAME).write_text(BRIEFING, encoding="utf-8")
    code, out, err = run(capsys, "ingest", NAME, "--index", str(index))
    assert code == 0, err
    assert "0 added, 0 updated, 2 unchanged" in out + err and generation(index) == after
