"""The lexical plan at scale (issue 28): stored trigram counts, and a candidate
match that takes the query's rarest terms within a posting budget, without
losing what the old plan found: exact ids first, Chinese found by Chinese,
common terms still counted in the ranking."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import pytest

from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.search import SearchMode, search
from kbsearch.store import ChangeSet, SearchFilter, Store, lexical
from kbsearch.store.lexical_counts import COUNTS_TABLE, TOTAL
from kbsearch.store.lexical_plan import EXHAUSTIVE, LexicalPlan, rarest_within
from kbsearch.store.migrations import ON_OPEN

# Many records share the common words (模型的, "model"); one holds the rare ones.
COMMON = [f"模型的推理速度 model serving note {i}" for i in range(12)]
RARE = "频域压缩 KV cache: 模型的 keys in the frequency domain, model agnostic"
TIGHT = LexicalPlan(posting_budget=4)
"""A budget that the common terms of these records exceed: what a million records do to a real budget."""


def record(i: int, text: str, **extra: object) -> Record:
    fields: dict[str, object] = {
        "id": f"tom/r{i}",
        "kind": Kind.increment,
        "title": "",
        "text": text,
        "instance": "tom",
        "date": dt.date(2026, 9, 1),
        "source": "/src/tom.md",
        "position": i,
    }
    fields.update(extra)
    return Record.model_validate(fields)


def fill(store: Store, records: list[Record], encoder: FakeEncoder) -> None:
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)


@pytest.fixture
def encoder() -> FakeEncoder:
    return FakeEncoder()


@pytest.fixture
def store(tmp_path: Path, encoder: FakeEncoder) -> Store:
    opened = Store.open(tmp_path / "idx", create=True)
    fill(opened, [record(i, text) for i, text in enumerate([*COMMON, RARE])], encoder)
    return opened


def vocabulary(store: Store) -> dict[str, int]:
    """Trigram → records, as FTS5 itself counts them (walking its postings)."""
    store.db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, {lexical.FTS_TABLE}, row)")
    return dict(store.db.execute("SELECT term, doc FROM temp.v").fetchall())


def stored(store: Store) -> dict[str, int]:
    return dict(store.db.execute(f"SELECT term, records FROM {COUNTS_TABLE} WHERE term != ?", (TOTAL,)).fetchall())


def ids(store: Store, encoder: FakeEncoder | None, query: str, mode: SearchMode, k: int = 5) -> list[str]:
    return [h.id for h in search(store, encoder, query, k, SearchFilter(), mode).results]


# -- the stored counts ------------------------------------------------------------


def test_stored_counts_are_fts5s_own_through_upserts_replacements_and_deletes(
    store: Store, encoder: FakeEncoder
) -> None:
    assert stored(store) == vocabulary(store)
    fill(store, [record(3, "rewritten: 投机解码 with suffix trees"), record(40, "新的记录 SGLang")], encoder)
    ingest_records(store, ChangeSet(deletes=["tom/r5", "tom/r12"]), model="fake", load_encoder=lambda: encoder)
    assert stored(store) == vocabulary(store)
    assert lexical.record_total(store.db) == store.count() == 12


def test_an_index_from_before_the_counts_gets_them_on_open(tmp_path: Path, encoder: FakeEncoder) -> None:
    root = tmp_path / "old"
    store = Store.open(root, create=True)
    fill(store, [record(i, text) for i, text in enumerate([*COMMON, RARE])], encoder)
    store.close()
    db = sqlite3.connect(root / "kb.sqlite")
    db.executescript(f"DROP TABLE {COUNTS_TABLE}; PRAGMA user_version = 3;")  # as schema 3 left it
    db.close()
    migrated = Store.open(root, model="fake")
    assert migrated.db.execute("PRAGMA user_version").fetchone()[0] == ON_OPEN  # schema 10 waits for a first_date write
    assert stored(migrated) == vocabulary(migrated) and lexical.record_total(migrated.db) == 13
    assert ids(migrated, None, "频域压缩", SearchMode.lexical) == ["tom/r12"]


def test_the_weights_read_from_the_counts_are_those_walked_from_the_postings(store: Store) -> None:
    terms = lexical.query_terms("模型的 频域压缩 model frequency zzzqqq")
    walked = lexical.term_weights(store.db, terms, [], EXHAUSTIVE)
    assert lexical.term_weights(store.db, terms, [], LexicalPlan()) == pytest.approx(walked)
    assert walked["频域压"] > walked["模型的"]


# -- the candidate match takes the rarest terms -----------------------------------


def test_the_rarest_terms_go_in_first_within_the_budget() -> None:
    counts = {"the": 900, "model": 300, "频域压": 2, "域压缩": 3}
    assert rarest_within(counts, 10) == ["频域压", "域压缩"]
    assert rarest_within(counts, 1) == ["频域压"]  # the rarest always goes in
    assert rarest_within(counts, 10_000) == ["频域压", "域压缩", "model", "the"]
    assert rarest_within(counts, None) == list(counts)


def test_a_tight_budget_leaves_the_common_terms_out_of_the_match(store: Store) -> None:
    terms = lexical.query_terms("模型的频域压缩")
    assert "模型的" in terms.long
    matched = lexical.matched_terms(store.db, terms, TIGHT)
    assert "模型的" not in matched and "频域压" in matched
    assert lexical.matched_terms(store.db, terms, EXHAUSTIVE) == terms.long


def test_a_chinese_query_finds_its_chinese_record_under_the_budget(store: Store, encoder: FakeEncoder) -> None:
    store.lexical_plan = TIGHT
    assert ids(store, None, "模型的频域压缩", SearchMode.lexical, k=1) == ["tom/r12"]
    assert ids(store, encoder, "模型的频域压缩", SearchMode.hybrid, k=1) == ["tom/r12"]


def test_a_common_term_left_out_of_the_match_still_counts_in_the_ranking(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    both = record(20, "SpecDecodeX 投机 drafts: 模型的推理速度")
    rare_only = record(21, "SpecDecodeX 投机 drafts")
    fill(store, [record(i, text) for i, text in enumerate(COMMON)] + [rare_only, both], encoder)
    store.lexical_plan = TIGHT
    assert "模型的" not in lexical.matched_terms(store.db, lexical.query_terms("SpecDecodeX 模型的推理速度"), TIGHT)
    # Both hold the rare name; only the coverage of the common words tells them apart.
    hits = {h.id: h for h in search(store, encoder, "SpecDecodeX 模型的推理速度", 5, SearchFilter()).results}
    both_hit, rare_hit = hits["tom/r20"], hits["tom/r21"]
    assert both_hit.dense_score is not None and rare_hit.dense_score is not None
    lexical_gap = (both_hit.score - both_hit.dense_score) - (rare_hit.score - rare_hit.dense_score)
    assert lexical_gap > 0.1 and both_hit.rank < rare_hit.rank


def test_an_exact_id_comes_first_even_when_its_record_holds_only_common_terms(
    store: Store, encoder: FakeEncoder
) -> None:
    fill(store, [record(30, "模型的推理速度 model serving", arxiv_ids=["2609.19671"])], encoder)
    store.lexical_plan = TIGHT
    query = "2609.19671 模型的推理速度 频域压缩"
    assert "模型的" not in lexical.matched_terms(store.db, lexical.query_terms(query), TIGHT)
    for mode in SearchMode:
        hits = search(store, encoder, query, 3, SearchFilter(), mode).results
        assert hits[0].id == "tom/r30" and hits[0].exact == "about", mode


def test_in_a_small_index_the_plan_ranks_as_the_old_one(store: Store, encoder: FakeEncoder) -> None:
    queries = ["模型的频域压缩", "model serving", "频域压缩 KV cache", "frequency domain keys", "推理速度 note 3"]
    for mode in (SearchMode.hybrid, SearchMode.lexical):
        for query in queries:
            store.lexical_plan = EXHAUSTIVE
            old = [(h.id, h.score) for h in search(store, encoder, query, 5, SearchFilter(), mode).results]
            store.lexical_plan = LexicalPlan()
            assert [(h.id, h.score) for h in search(store, encoder, query, 5, SearchFilter(), mode).results] == old
