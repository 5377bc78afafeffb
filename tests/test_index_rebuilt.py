"""Reads by a long-lived process after its index folder was removed, or rebuilt at the same path.

A server or the TUI keeps its database (and vector index) open: after ``rm -rf INDEX`` it went on
answering searches, checks, show and stats from the removed file, and after a new ``kbsearch
ingest`` into the same path it still answered from the old index. Now every use of the store
outside a read compares the file it opened with the one at the path (``store.reopen``): removed,
each read is refused in one line; rebuilt, the new index is opened and answers, without a restart.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import ROWS, AsgiClient, build_index, service_for, write_rows

from kbsearch.cli import main
from kbsearch.errors import KbError
from kbsearch.kb import KnowledgeBase, Opener
from kbsearch.search import SearchMode
from kbsearch.serve.http import build_app
from kbsearch.serve.service import Service
from kbsearch.serve.tokens import READ_TOKEN, Tokens
from kbsearch.store import Store
from kbsearch.store.reopen import current
from kbsearch.tui.gateway import KbGateway

REMOVED = "the index folder was removed while this program had it open; nothing was read from the removed copy"
NEW_ROWS = [
    {"id": "zyx", "title": "Zyx-Sched packs decode batches denser", "text": "a scheduler for decode batches"},
    {"id": "flash", "title": "Flash decoding for long contexts", "text": "split the KV cache across blocks"},
]
MODES = [SearchMode.hybrid, SearchMode.dense, SearchMode.lexical]
OLD_IDS = {str(row["id"]) for row in ROWS}


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    return build_index(tmp_path)


@pytest.fixture
def served(index: Path) -> Iterator[tuple[AsgiClient, dict[str, str]]]:
    service: Service = service_for(index, readers=2)
    tokens, _ = Tokens.in_folder(index)
    auth = {"Authorization": f"Bearer {(index / READ_TOKEN).read_text().strip()}"}
    yield AsgiClient(build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024)), auth
    service.close()


def rebuild(index: Path, tmp_path: Path) -> None:
    """``rm -rf INDEX`` and a new ingest there: its generation is 1 again, as the old one's was."""
    shutil.rmtree(index)
    assert main(["ingest", str(write_rows(tmp_path / "new.jsonl", NEW_ROWS)), "--index", str(index)]) == 0


def test_served_reads_after_the_folder_was_removed_say_so(
    served: tuple[AsgiClient, dict[str, str]], index: Path
) -> None:
    client, auth = served
    assert client.post("/api/search", json={"query": "KV cache"}, headers=auth).json()["results"]
    shutil.rmtree(index)
    calls = [
        ("/api/search", {"query": "KV cache compression"}),
        ("/api/search", {"query": "KV cache compression", "mode": "dense"}),
        ("/api/check", {"text": "TriAttention frequency-domain KV cache compression"}),
        ("/api/show", {"id": "tri-jay"}),
        ("/api/stats", {}),
        ("/api/list", {}),
        ("/api/search", {"query": "KV cache compression"}),  # again: the same answer, never stale results
    ]
    for url, body in calls:
        answer = client.post(url, json=body, headers=auth)
        assert answer.status_code == 400, (url, answer.text)
        said = answer.json()
        assert REMOVED in said["error"] and "kbsearch ingest" in said["hint"] and "restart" in said["hint"], url
        assert "tri-jay" not in answer.text or url == "/api/show"
    assert not index.exists()  # a read makes nothing where the index was


def test_served_reads_after_a_rebuild_answer_from_the_new_index(
    served: tuple[AsgiClient, dict[str, str]], index: Path, tmp_path: Path
) -> None:
    client, auth = served
    assert client.post("/api/stats", json={}, headers=auth).json()["generation"] == 1
    rebuild(index, tmp_path)
    with KnowledgeBase.open(index) as fresh:  # what a process started now answers
        expected = {m: [(r.id, r.score) for r in fresh.search("decode batches", mode=m).results] for m in MODES}
    assert all(expected.values())
    for _ in range(4):  # each reader thread opens the new index on its next request
        for mode in MODES:
            found = client.post("/api/search", json={"query": "decode batches", "mode": mode}, headers=auth).json()
            # dense: the new index's vectors, not the removed one's kept for the same generation number
            assert [(r["id"], r["score"]) for r in found["results"]] == expected[mode], (mode, found)
    stats = client.post("/api/stats", json={}, headers=auth).json()
    assert (stats["records"], stats["generation"]) == (2, 1)
    assert client.post("/api/show", json={"id": "tri-jay"}, headers=auth).status_code == 404
    checked = client.post("/api/check", json={"text": "Zyx-Sched packs decode batches denser"}, headers=auth).json()
    assert checked["items"][0]["verdict"] == "DUPLICATE", checked


def test_a_removed_then_rebuilt_folder_is_read_again(index: Path, tmp_path: Path) -> None:
    with KnowledgeBase.open(index) as kb:
        assert kb.stats().records == 4
        shutil.rmtree(index)
        for _ in range(2):
            with pytest.raises(KbError, match=REMOVED) as refused:
                kb.search("KV cache compression")
            assert "\n" not in str(refused.value)
        with pytest.raises(KbError, match=REMOVED):
            kb.audit()
        assert main(["ingest", str(write_rows(tmp_path / "new.jsonl", NEW_ROWS)), "--index", str(index)]) == 0
        assert {r.id for r in kb.search("decode batches").results} <= {"zyx", "flash"}
        assert kb.stats().records == 2


def test_the_tui_gateway_follows_a_rebuild(index: Path, tmp_path: Path) -> None:
    """The TUI's gateways hold a KnowledgeBase each (no textual in this path): the same rule."""
    gateway = KbGateway(Opener(index, None), str(index))
    try:
        assert {r.id for r in gateway.call(lambda kb: kb.search("KV cache").results)} <= OLD_IDS
        shutil.rmtree(index)
        with pytest.raises(KbError, match=REMOVED):
            gateway.call(lambda kb: kb.search("KV cache"))
        assert main(["ingest", str(write_rows(tmp_path / "new.jsonl", NEW_ROWS)), "--index", str(index)]) == 0
        found = gateway.call(lambda kb: kb.search("decode batches").results)
        assert found and {r.id for r in found} <= {"zyx", "flash"}
    finally:
        gateway.close()


def test_a_read_under_way_finishes_on_the_file_it_began_on(index: Path, tmp_path: Path) -> None:
    store = Store.open(index)
    try:
        with store.snapshot():
            rebuild(index, tmp_path)
            assert current(store, index) is store  # never swapped inside a read
            assert store.count() == 4
        assert current(store, index) is None  # after it: closed, the caller opens the new one
    finally:
        store.close()
