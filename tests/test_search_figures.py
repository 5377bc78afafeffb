"""One figure, however it is spelled (a new user's probe, 6 December): a
lexical search for ``10.7x`` found no record that wrote ``10.7×`` or
``10.7 倍``, and the README's own ``TensorRT-LLM 10.7x`` ranked the one record
holding 10.7 fourth of four, below records naming TensorRT-LLM alone. The
index now adds each figure's one spelling (the gate's: ``textsim.numbers``)
and a query is spelled so; an index from before gets it on open (migration 6)."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from pathlib import Path

import pytest

from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records
from kbsearch.parse import iter_input_files, parse_file
from kbsearch.records import Kind, Record
from kbsearch.search import SearchMode, SearchResponse, search
from kbsearch.store import ChangeSet, SearchFilter, Store, lexical, lexical_rows
from kbsearch.store.lexical_counts import COUNTS_TABLE, TOTAL
from kbsearch.store.migrations import ON_OPEN, _m2_document, _m3_fold
from kbsearch.text.figures import figures_to_index, in_one_spelling
from kbsearch.text.snippet import make_snippet

ROOT = Path(__file__).resolve().parents[1]
TRIATTENTION = "jay/2026-09-17-jay-inference-e1prep#1"  # the only example record holding 10.7 (as 10.7×)


def record(i: int, title: str, text: str) -> Record:
    return Record.model_validate(
        {
            "id": f"tom/f{i}",
            "kind": Kind.increment,
            "title": title,
            "text": text,
            "instance": "tom",
            "date": dt.date(2026, 12, 1),
            "source": "/src/tom.md",
            "position": i,
        }
    )


# Three writers' spellings of one result, two of another, and records naming the system alone.
SPELLINGS = [
    record(0, "SpecPipe", "Result: 3.1x faster decoding on 8 H100s."),
    record(1, "SpecPipe 流水线投机解码", "在 8 张 H100 上解码速度提升 3.1 倍。"),
    record(2, "SpecPipe again", "Decoding is 3.1× faster than the baseline."),
    record(3, "SpecPipe release notes", "SpecPipe ships its code; no figure here."),
    record(4, "SpecPipe on GitHub", "SpecPipe: a pipeline for draft and target models."),
    record(5, "A dataset", "收集了 6.3万 条对话。"),
    record(6, "Another dataset", "It holds 63,000 dialogues."),
    record(7, "Llama notes", "Llama-3.1-70B on 3000 tokens."),
]


def fill(store: Store, records: list[Record]) -> Store:
    encoder = FakeEncoder()
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    return store


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = Store.open(tmp_path_factory.mktemp("kb") / "idx", create=True)
    return fill(store, [r for p in iter_input_files([ROOT / "examples"]) for r in parse_file(p.resolve()).records])


@pytest.fixture
def spellings(tmp_path: Path) -> Store:
    return fill(Store.open(tmp_path / "idx", create=True), SPELLINGS)


def ask(store: Store, query: str, mode: SearchMode = SearchMode.lexical, k: int = 10) -> SearchResponse:
    return search(store, FakeEncoder(), query, k, SearchFilter(), mode)


def found(response: SearchResponse) -> list[str]:
    return [hit.id for hit in response.results]


@pytest.mark.parametrize("query", ["10.7x", "10.7×", "10.7 倍", "10.7倍", "１０.７Ｘ"])
def test_every_spelling_of_a_figure_finds_the_record_that_writes_one(examples: Store, query: str) -> None:
    assert found(ask(examples, query)) == [TRIATTENTION]


def test_the_readmes_example_ranks_the_record_holding_the_figure_first(examples: Store) -> None:
    ranked = found(ask(examples, "TensorRT-LLM 10.7x"))
    assert ranked[0] == TRIATTENTION and len(ranked) > 1  # the others name TensorRT-LLM alone


@pytest.mark.parametrize("query", ["3.1x", "3.1×", "3.1 倍"])
def test_three_spellings_match_each_other_and_a_name_alone_ranks_below(spellings: Store, query: str) -> None:
    assert set(found(ask(spellings, query))) == {"tom/f0", "tom/f1", "tom/f2"}
    ranked = found(ask(spellings, f"SpecPipe {query}"))
    assert set(ranked[:3]) == {"tom/f0", "tom/f1", "tom/f2"} and set(ranked[3:]) == {"tom/f3", "tom/f4"}


@pytest.mark.parametrize("query", ["63k", "63,000", "6.3万", "63 thousand"])
def test_a_magnitude_is_one_figure_however_written(spellings: Store, query: str) -> None:
    assert set(found(ask(spellings, query))) == {"tom/f5", "tom/f6"}


@pytest.mark.parametrize("query", ["10.7x", "10.7 倍", "TensorRT-LLM 10.7x"])
def test_hybrid_counts_the_figure_in_any_spelling(examples: Store, query: str) -> None:
    assert found(ask(examples, query, SearchMode.hybrid))[0] == TRIATTENTION


def test_bare_digits_are_matched_as_typed() -> None:
    for query in ["Llama-3.1-70B", "3000 tokens", "2607.08057", "v0.26.0", "8×H100"]:
        assert in_one_spelling(query) == query
    assert figures_to_index("llama-3.1-70b on 3000 tokens, 2607.08057") == []
    assert figures_to_index("kv 显存 10.7× 压缩，6.3万 条，63k 行，2.5 倍") == ["10.7x", "2.5x"]


def test_a_snippet_marks_the_figure_in_the_records_spelling() -> None:
    spans = make_snippet("KV 显存 10.7× 压缩，吞吐 2.5 倍", lexical.query_terms("10.7x 2.5x").all())
    assert [s.text for s in spans if s.match] == ["10.7×", "2.5 倍"]


def test_an_index_from_schema_5_gets_the_spellings_on_open(tmp_path: Path) -> None:
    root = tmp_path / "idx"
    fill(Store.open(root, create=True), SPELLINGS).close()
    db = sqlite3.connect(root / "kb.sqlite")
    with db:  # as schema 5 left it: FTS rows folded, no spellings added, counts FTS5's own
        before = db.execute("SELECT id, title, text, data FROM records ORDER BY rowid").fetchall()
        for rowid, data in db.execute("SELECT rowid, data FROM records").fetchall():
            row = [_m3_fold(p) for p in _m2_document(json.loads(data))]
            db.execute(f"UPDATE {lexical.FTS_TABLE} SET title = ?, body = ?, meta = ? WHERE rowid = ?", (*row, rowid))
        db.execute(f"DELETE FROM {COUNTS_TABLE} WHERE term != ?", (TOTAL,))
        db.execute(f"CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, {lexical.FTS_TABLE}, row)")
        db.execute(f"INSERT INTO {COUNTS_TABLE}(term, records) SELECT term, doc FROM temp.v")
        db.execute("PRAGMA user_version = 5")
    db.close()
    store = Store.open(root, model="fake")
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == ON_OPEN  # schema 10 waits for a first_date write
    assert set(found(ask(store, "3.1x"))) == {"tom/f0", "tom/f1", "tom/f2"}
    assert set(found(ask(store, "63k"))) == {"tom/f5", "tom/f6"}
    # The stored counts are FTS5's own, and what a write would store now is what the migration stored.
    store.db.execute(f"CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, {lexical.FTS_TABLE}, row)")
    vocabulary = dict(store.db.execute("SELECT term, doc FROM temp.v"))
    assert dict(store.db.execute(f"SELECT term, records FROM {COUNTS_TABLE} WHERE term != ?", (TOTAL,))) == vocabulary
    rows = store.db.execute(f"SELECT rowid, title, body, meta FROM {lexical.FTS_TABLE} ORDER BY rowid").fetchall()
    assert [tuple(r[1:]) for r in rows] == [lexical_rows.document(r) for r in SPELLINGS]
    assert store.db.execute("SELECT id, title, text, data FROM records ORDER BY rowid").fetchall() == before
