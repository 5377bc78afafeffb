"""An index folder removed or replaced under a running server or TUI (probe 12).

The process keeps its database open: SQLite goes on writing the unlinked file,
so an accept used to answer "accepted", lose the records with the file, and
leave a half folder (the vector cache and the lock, no kb.sqlite) that no
command could open. Now every write first checks that the open database is
still the one at the path, and refuses in one line, making nothing.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import ROWS, AsgiClient, build_index, service_for, write_rows

from kbsearch.cli import main
from kbsearch.errors import KbError
from kbsearch.kb import KnowledgeBase
from kbsearch.serve.http import build_app
from kbsearch.serve.service import Service
from kbsearch.serve.tokens import WRITE_TOKEN, Tokens

NEW = "Brand new Zyx-Sched\n- Zyx-Sched packs decode batches five times denser"
GONE = "the index folder was removed or replaced while this program had it open; nothing was written"


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    return build_index(tmp_path)


@pytest.fixture
def service(index: Path) -> Iterator[Service]:
    service = service_for(index, lock_timeout=0.2)
    yield service
    service.close()


def test_an_accept_into_a_removed_folder_is_refused_and_makes_nothing(index: Path) -> None:
    with KnowledgeBase.open(index) as kb:
        assert kb.stats().records == 4  # the store is open, as a server's or the TUI's
        shutil.rmtree(index)
        with pytest.raises(KbError, match=GONE) as refused:
            kb.check_text(NEW, accept=True)
        assert "restart 'kbsearch serve'" in str(refused.value) and "\n" not in str(refused.value)
        with pytest.raises(KbError, match=GONE):
            kb.remove(["tri-jay"])
    assert not index.exists()  # no half folder: no manifest, no vectors.faiss, no lock


def test_an_accept_into_a_replaced_index_is_refused_and_leaves_the_new_one_alone(index: Path, tmp_path: Path) -> None:
    with KnowledgeBase.open(index) as kb:
        assert kb.stats().records == 4
        shutil.rmtree(index)
        rows = write_rows(tmp_path / "other.jsonl", ROWS[:2])
        assert main(["ingest", str(rows), "--index", str(index)]) == 0  # another index where it was
        with pytest.raises(KbError, match=GONE):
            kb.check_text(NEW, accept=True)
    with KnowledgeBase.open(index) as fresh:
        assert fresh.stats().records == 2
        fresh.check_text(NEW, accept=True)  # a process that opened it now writes as ever
        assert fresh.stats().records == 3


def test_the_server_refuses_an_accept_after_its_folder_was_removed(service: Service, index: Path) -> None:
    tokens, _ = Tokens.in_folder(index)
    client = AsgiClient(build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024))
    auth = {"Authorization": f"Bearer {(index / WRITE_TOKEN).read_text().strip()}"}
    assert client.post("/api/stats", json={}, headers=auth).json()["records"] == 4
    shutil.rmtree(index)
    answer = client.post("/api/check", json={"text": NEW, "accept": True}, headers=auth)
    assert answer.status_code == 400, answer.text
    assert GONE in answer.json()["error"] and "restart" in answer.json()["hint"]
    assert "accepted" not in answer.text and "created_index" not in answer.text
    assert not index.exists()


def test_an_accept_into_a_replaced_index_is_refused_before_it_is_judged(
    index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing is read for the write from the removed database (its verdicts would be of the old index)."""
    import kbsearch.dedupe.check as check

    with KnowledgeBase.open(index) as kb:
        assert kb.stats().records == 4
        shutil.rmtree(index)
        assert main(["ingest", str(write_rows(tmp_path / "other.jsonl", ROWS[:1])), "--index", str(index)]) == 0
        monkeypatch.setattr(check.Checker, "check", lambda *a, **k: pytest.fail("judged against the removed index"))
        with pytest.raises(KbError, match=GONE):
            kb.check_text(NEW, accept=True)
