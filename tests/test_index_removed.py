"""An index folder removed or replaced under a running server or TUI (probe 12).

The process keeps its database open: SQLite goes on writing the unlinked file,
so an accept used to answer "accepted", lose the records with the file, and
leave a half folder (the vector cache and the lock, no kb.sqlite) that no
command could open. Now every write first checks that the open database is
still the one at the path, and refuses in one line, making nothing; an accept
after another index was built there is judged against that one and stored in
it (``store.reopen``; the reads: test_index_rebuilt).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from serve_support import ROWS, AsgiClient, build_index, write_rows

from kbsearch.cli import main
from kbsearch.errors import KbError
from kbsearch.kb import KnowledgeBase
from kbsearch.serve.http import build_app
from kbsearch.serve.service import Service
from kbsearch.serve.tokens import WRITE_TOKEN, Tokens

NEW = "Brand new Zyx-Sched\n- Zyx-Sched packs decode batches five times denser"
GONE = "the index folder was removed or replaced while this program had it open; nothing was written"
REMOVED = "the index folder was removed while this program had it open; nothing was read from the removed copy"


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    return build_index(tmp_path)


def test_an_accept_into_a_removed_folder_is_refused_and_makes_nothing(index: Path) -> None:
    with KnowledgeBase.open(index) as kb:
        assert kb.stats().records == 4  # the store is open, as a server's or the TUI's
        shutil.rmtree(index)
        with pytest.raises(KbError, match=REMOVED) as refused:
            kb.check_text(NEW, accept=True)
        assert "restart 'kbsearch serve'" in str(refused.value) and "\n" not in str(refused.value)
        with pytest.raises(KbError, match=REMOVED):  # again: never a fresh index made by a first accept
            kb.check_text(NEW, accept=True)
        with pytest.raises(KbError, match=GONE):
            kb.remove(["tri-jay"])
    assert not index.exists()  # no half folder: no manifest, no vectors.faiss, no lock


def test_an_accept_into_a_replaced_index_is_stored_in_the_new_one(index: Path, tmp_path: Path) -> None:
    with KnowledgeBase.open(index) as kb:
        assert kb.stats().records == 4
        shutil.rmtree(index)
        rows = write_rows(tmp_path / "other.jsonl", ROWS[:2])
        assert main(["ingest", str(rows), "--index", str(index)]) == 0  # another index where it was
        with pytest.raises(KbError, match=GONE):  # a remove (ids the user saw in the old one) is still refused
            kb.remove(["tri-jay"])
        assert kb.check_text(NEW, accept=True).accepted
    with KnowledgeBase.open(index) as fresh:
        assert fresh.stats().records == 3


def test_the_server_refuses_an_accept_after_its_folder_was_removed(service: Service, index: Path) -> None:
    tokens, _ = Tokens.in_folder(index)
    client = AsgiClient(build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024))
    auth = {"Authorization": f"Bearer {(index / WRITE_TOKEN).read_text().strip()}"}
    assert client.post("/api/stats", json={}, headers=auth).json()["records"] == 4
    shutil.rmtree(index)
    answer = client.post("/api/check", json={"text": NEW, "accept": True}, headers=auth)
    assert answer.status_code == 400, answer.text
    assert REMOVED in answer.json()["error"] and "restart" in answer.json()["hint"]
    assert "accepted" not in answer.text and "created_index" not in answer.text
    assert not index.exists()


def test_an_accept_into_a_replaced_index_is_judged_against_the_new_one(
    index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing is read for the write from the removed database (its verdicts would be of the old index)."""
    import kbsearch.dedupe.check as check

    judged = check.Checker.check

    def only_the_new_index(self: check.Checker, *args: object, **kwargs: object) -> object:
        assert self.store.count() == 1, "judged against the removed index"
        return judged(self, *args, **kwargs)  # type: ignore[arg-type]

    with KnowledgeBase.open(index) as kb:
        assert kb.stats().records == 4
        shutil.rmtree(index)
        assert main(["ingest", str(write_rows(tmp_path / "other.jsonl", ROWS[:1])), "--index", str(index)]) == 0
        monkeypatch.setattr(check.Checker, "check", only_the_new_index)
        assert kb.check_text(NEW, accept=True).accepted
        assert kb.stats().records == 2
