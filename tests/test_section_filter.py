"""``--section`` as docs/search.md says it matches: the stored section *contains* the text,
ignoring case; a number matches its namesakes in other docs and its longer numbers, and a
topic keeps one doc's. Project-written sections, the shapes the parsers store."""

from __future__ import annotations

import sqlite3

from kbsearch.filters import SearchFilter, where_sql

ROWS = [
    ("doc/agents#§2.1", "agents", "§2 Agent systems > §2.1 Agent Memory"),
    ("doc/serving#§2.1", "serving", "§2 Serving > §2.1 Batching"),
    ("doc/serving#§2.10", "serving", "§2 Serving > §2.10 Quotas"),
    ("doc/serving#§1.3", "serving", "§1 Engines > §1.3 KV Cache"),
    ("a#1", "agents", "§2.1"),  # an increment whose header wrote the number alone
    ("b#1", "serving", "§1.3"),
    ("c#1", "serving", "§1.3 KV cache"),
]


def matching(**fields: object) -> list[str]:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE records (id TEXT, kind TEXT, instance TEXT, topic TEXT, date TEXT, section TEXT)")
    db.executemany("INSERT INTO records (id, topic, section) VALUES (?, ?, ?)", ROWS)
    where, params = where_sql(SearchFilter.model_validate(fields))
    return [row[0] for row in db.execute(f"SELECT id FROM records WHERE {where} ORDER BY rowid", params)]


def test_a_section_filter_keeps_the_sections_that_contain_its_text() -> None:
    # The title, any case: not the increment that wrote only its number.
    assert matching(section="kv CACHE") == ["doc/serving#§1.3", "c#1"]
    assert matching(section="§1.3") == ["doc/serving#§1.3", "b#1", "c#1"]
    # A number: every doc's §2.1, and §2.10 too.
    assert matching(section="§2.1") == ["doc/agents#§2.1", "doc/serving#§2.1", "doc/serving#§2.10", "a#1"]
    assert matching(section="§2.1", topic="agents") == ["doc/agents#§2.1", "a#1"]
