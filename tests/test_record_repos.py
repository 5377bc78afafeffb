"""A bare owner/repo counts in a record where the writer marks it as a repo (a
new user's probe, 6 December): ``search toolsmith-ai/toolsmith`` pinned the
record writing ``GitHub toolsmith-ai/toolsmith`` but not the card writing
``Repository: toolsmith-ai/toolsmith``; a bare ``o/r`` was read in queries
only. In running text it is most often two words (input/output, and/or), so
it counts only after a word naming a repository or in parentheses after the
name it holds; an index written before gets these on open (migration 8)."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import pytest

from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.render import record_text
from kbsearch.search import SearchMode, search
from kbsearch.store import ChangeSet, SearchFilter, Store, lexical_rows
from kbsearch.store.migrations import ON_OPEN
from kbsearch.text.ids import record_github_repos


@pytest.mark.parametrize(
    ("text", "repos"),
    [
        ("Repository: quill-ml/quill", ["quill-ml/quill"]),
        ("代码开源在 kvpool-lab/kvpool，许可证 MIT", ["kvpool-lab/kvpool"]),
        ("仓库：Acme/FastPath.git", ["acme/fastpath"]),
        ("the code at bench-org/routebench is small", ["bench-org/routebench"]),
        ("LedgerKit 2.0 (ledger-ai/LedgerKit) adds audits.", ["ledger-ai/ledgerkit"]),
        ("see github.com/ab-c/cd and repo de-f/fg", ["ab-c/cd", "de-f/fg"]),
        # Two words, a date, a unit, a fraction: never a repo.
        ("TCP/IP and input/output, prefill/decode 分离, and/or", []),
        ("读/写 带宽 2026/10 发布, 3000 tokens/s, 1/10.7", []),
        ("A barcode o/r, an unpacked (input/output) pair", []),
        ("Tidal (prefill/decode) splits nodes", []),
        ("slow decode (prefill/decode) and Read (read/write)", []),
    ],
)
def test_a_bare_repo_counts_where_the_text_marks_it(text: str, repos: list[str]) -> None:
    assert record_github_repos(text) == repos


def card(i: int, text: str) -> Record:
    return Record.model_validate(
        {
            "id": f"card/{900 + i}",
            "kind": Kind.paper_card,
            "title": f"Card {i}",
            "text": text,
            "date": dt.date(2026, 11, 3),
            "source": f"/src/card-{i}.md",
            "position": 0,
        }
    )


CARDS = [
    card(0, "LedgerKit keeps an agent's memory as a ledger. Repository: ledger-ai/ledgerkit"),
    card(1, "A survey of agent memory; GitHub ledger-ai/ledgerkit is one of them."),
    card(2, "Read and write paths (read/write) of agent memory."),
]


def fill(store: Store) -> Store:
    encoder = FakeEncoder()
    ingest_records(store, ChangeSet(upserts=CARDS), model=encoder.model_id, load_encoder=lambda: encoder)
    return store


def pinned(store: Store, query: str) -> list[str]:
    results = search(store, FakeEncoder(), query, 10, SearchFilter(), SearchMode.hybrid).results
    return sorted(h.id for h in results if h.exact)


def test_a_query_repo_pins_the_record_writing_it_bare(tmp_path: Path) -> None:
    store = fill(Store.open(tmp_path / "idx", create=True))
    assert pinned(store, "ledger-ai/ledgerkit") == ["card/900", "card/901"]
    assert pinned(store, "read/write") == []


def test_an_index_written_before_gets_the_bare_repos_on_open(tmp_path: Path) -> None:
    root = tmp_path / "idx"
    fill(Store.open(root, create=True)).close()
    db = sqlite3.connect(root / "kb.sqlite")
    with db:  # as schema 7 left it: only repos written as github.com/o/r or GitHub o/r
        db.execute("DELETE FROM record_refs WHERE rowid = 1")
        db.execute("PRAGMA user_version = 7")
    db.close()
    store = Store.open(root, model="fake")
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == ON_OPEN  # schema 10 waits for a first_date write
    assert store.refs_of([1, 2, 3]) == {
        i + 1: lexical_rows.record_refs(c) for i, c in enumerate(CARDS) if c.text != CARDS[2].text
    }
    assert pinned(store, "ledger-ai/ledgerkit") == ["card/900", "card/901"]


def test_show_lists_the_repos_a_record_carries() -> None:
    assert "      repos: ledger-ai/ledgerkit\n" in record_text(CARDS[0])
    assert "repos:" not in record_text(CARDS[2])
