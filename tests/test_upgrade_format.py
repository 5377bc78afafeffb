"""An index a newer kbsearch wrote says so in its schema (probe 24).

A doc section whose text changed is stored with ``first_date``/``first_text``; the kbsearch
before them validates stored records strictly and crashed on the index (exit 3), while the
index still said schema 9, so its own "written by a newer kbsearch" refusal never fired. The
write that stores the first such record now brings the index to schema 10 (an older kbsearch
refuses it in one line); opening, reading and other writes leave it at 9, readable by the
version before. A server whose index a newer kbsearch upgraded under it refuses in one line
(restart it) instead of answering HTTP 500.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import AsgiClient, build_index, service_for

from fake_encoder import FakeEncoder
from kbsearch.errors import KbError
from kbsearch.ingest import ingest_records
from kbsearch.kb import KnowledgeBase, examine
from kbsearch.records import Kind, Record
from kbsearch.serve.http import build_app
from kbsearch.serve.tokens import READ_TOKEN, Tokens
from kbsearch.store import ChangeSet, Store
from kbsearch.store.migrations import FIRST_DATES, MIGRATIONS, ON_OPEN, SIGNED_TIMES, SKIPPED_ITEMS

UPGRADED_UNDER = "a newer kbsearch upgraded the index while this program had it open"


def schema(index: Path) -> int:
    db = sqlite3.connect(index / "kb.sqlite")
    try:
        return int(db.execute("PRAGMA user_version").fetchone()[0])
    finally:
        db.close()


def set_schema(index: Path, number: int) -> None:
    db = sqlite3.connect(index / "kb.sqlite")
    try:
        db.execute(f"PRAGMA user_version = {number}")
    finally:
        db.close()


def section(first_date: dt.date | None, text: str = "Osprey serves FP4 GEMM 1.4x faster.") -> Record:
    return Record(
        id="doc/serving#§1.2", kind=Kind.doc_section, title="§1.2 Quantization", text=text, date=dt.date(2026, 10, 3),
        first_date=first_date, first_text="QuillFP4 serves 1.8x faster." if first_date else None,
    )  # fmt: skip


def write(index: Path, record: Record) -> None:
    encoder = FakeEncoder()
    store = Store.open(index, create=True)
    try:
        ingest_records(store, ChangeSet(upserts=[record]), model=encoder.model_id, load_encoder=lambda: encoder)
    finally:
        store.close()


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    return build_index(tmp_path)


def test_only_a_write_of_a_first_date_brings_the_index_to_the_new_schema(index: Path) -> None:
    assert FIRST_DATES == SIGNED_TIMES - 1 == SKIPPED_ITEMS - 2 == len(MIGRATIONS) - 2 == ON_OPEN + 1
    assert schema(index) == ON_OPEN  # a fresh index holds no such record
    write(index, section(None))
    assert schema(index) == ON_OPEN  # a section that never changed is stored as before
    write(index, section(dt.date(2026, 10, 1)))
    assert schema(index) == FIRST_DATES
    with KnowledgeBase.open(index) as kb:
        assert kb.show("doc/serving#§1.2").first_date == dt.date(2026, 10, 1)
        assert kb.stats().format_version == FIRST_DATES  # stats says "format 10"


def test_an_index_of_the_version_before_is_read_as_is_and_marked_on_the_first_such_write(index: Path) -> None:
    set_schema(index, ON_OPEN - 1)  # an older schema still migrates on open
    Store.open(index).close()
    assert schema(index) == ON_OPEN
    store = Store.open(index, upgrade=False)  # as doctor opens it: no write needed to read it
    try:
        assert store.count() == 4
    finally:
        store.close()
    with KnowledgeBase.open(index) as kb:
        assert kb.search("KV cache").results
        assert kb.stats().records == 4
    assert schema(index) == ON_OPEN  # read with write access: still readable by the version before
    write(index, section(dt.date(2026, 10, 1)))
    assert schema(index) == FIRST_DATES


def test_an_index_of_a_newer_schema_is_refused_in_one_line(index: Path) -> None:
    set_schema(index, len(MIGRATIONS) + 1)
    with pytest.raises(KbError, match="written by a newer kbsearch") as refused:
        Store.open(index)
    assert "\n" not in str(refused.value) and "backup" in (refused.value.hint or "")
    [finding] = examine(index).findings
    assert "newer kbsearch" in finding.message and finding.fix.startswith("upgrade kbsearch"), finding


@pytest.fixture
def served(index: Path) -> Iterator[tuple[AsgiClient, dict[str, str]]]:
    service = service_for(index, readers=2)
    tokens, _ = Tokens.in_folder(index)
    auth = {"Authorization": f"Bearer {(index / READ_TOKEN).read_text().strip()}"}
    yield AsgiClient(build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024)), auth
    service.close()


def test_a_server_whose_index_a_newer_kbsearch_upgraded_says_restart(
    served: tuple[AsgiClient, dict[str, str]], index: Path
) -> None:
    client, auth = served
    for _ in range(2):  # both reader threads open the index
        assert client.post("/api/search", json={"query": "KV cache"}, headers=auth).status_code == 200
    set_schema(index, len(MIGRATIONS) + 1)
    for url, body in [("/api/search", {"query": "KV cache"}), ("/api/check", {"text": "KV cache"})] * 2:
        answer = client.post(url, json=body, headers=auth)
        assert answer.status_code == 400, (url, answer.text)
        assert UPGRADED_UNDER in answer.json()["error"] and "restart" in answer.json()["hint"], url


def test_a_long_lived_reader_notices_the_upgrade(index: Path) -> None:
    with KnowledgeBase.open(index) as kb:
        assert kb.stats().records == 4
        set_schema(index, len(MIGRATIONS) + 1)
        with pytest.raises(KbError, match=UPGRADED_UNDER):
            kb.search("KV cache")
