"""Choosing where an index keeps its vectors: the first write's ``--vectors``,
remembered by the index, shown by ``stats``, and never changed by a later
write. Filters said as Milvus predicates keep exactly what SQL keeps."""

from __future__ import annotations

import datetime as dt
import sqlite3
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cli import run

from kbsearch.filters import SearchFilter, where_sql
from kbsearch.records import Kind
from kbsearch.vector_index.choice import parse_vector_store
from kbsearch.vector_index.predicate import PointFields, Predicate

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@pytest.fixture
def milvus_index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    index = tmp_path / "idx"
    code, _, err = run(capsys, "ingest", str(EXAMPLES), "--index", str(index), "--vectors", f"milvus:{index}/v.db")
    assert code == 0, err
    return index


def test_the_first_write_chooses_and_later_commands_need_no_flag(
    milvus_index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "stats", "--index", str(milvus_index), "--json")
    assert code == 0 and '"vector_store": "milvus:v.db"' in out and '"index_type": "milvus"' in out
    code, out, _ = run(capsys, "search", "KV cache", "--mode", "dense", "-k", "3", "--index", str(milvus_index))
    assert code == 0 and "KV" in out
    code, _, _ = run(capsys, "ingest", str(EXAMPLES), "--index", str(milvus_index))
    assert code == 0
    assert not (milvus_index / "vectors.faiss").exists()


def test_a_different_vectors_on_a_later_write_is_refused_and_nothing_is_lost(
    milvus_index: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    records = _count(milvus_index)
    for other in ("faiss", "milvus://127.0.0.1:19530", f"milvus:{tmp_path}/other.db"):
        code, out, err = run(capsys, "ingest", str(EXAMPLES), "--index", str(milvus_index), "--vectors", other)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and "keeps its vectors in milvus:v.db" in err and "new --index" in err
    assert _count(milvus_index) == records
    assert not (tmp_path / "other.db").exists()


def test_a_local_index_refuses_milvus_too(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "local"
    assert run(capsys, "ingest", str(EXAMPLES), "--index", str(index))[0] == 0
    code, _, err = run(capsys, "ingest", str(EXAMPLES), "--index", str(index), "--vectors", f"milvus:{tmp_path}/v.db")
    assert code == 2 and "keeps its vectors in faiss" in err
    code, out, _ = run(capsys, "stats", "--index", str(index))
    assert code == 0 and "kept in      faiss" in out


def test_a_bad_vectors_value_names_what_it_takes_and_creates_nothing(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for bad in ("qdrant://x:1", "milvus:vectors.sqlite", "milvus://nohost"):
        code, _, err = run(capsys, "ingest", str(EXAMPLES), "--index", str(tmp_path / "idx"), "--vectors", bad)
        assert code == 2 and err.count("\n") == 1 and "milvus:PATH.db" in err
    assert not (tmp_path / "idx").exists()


def test_without_the_extra_the_exact_pip_install_is_named(
    milvus_index: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pymilvus", None)  # as if not installed: importing it raises ImportError
    code, out, err = run(capsys, "search", "KV cache", "--mode", "dense", "--index", str(milvus_index))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "pip install 'kbsearch[milvus]'" in err
    code, out, _ = run(capsys, "stats", "--index", str(milvus_index))  # stats reads meta alone: no extra needed
    assert code == 0 and "milvus:v.db" in out


def test_a_milvus_server_that_does_not_answer_is_one_line(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KBSEARCH_MILVUS_TOKEN", "root:Milvus")
    index = tmp_path / "idx"
    code, _, err = run(capsys, "ingest", str(EXAMPLES), "--index", str(index), "--vectors", "milvus://127.0.0.1:9")
    assert code == 2 and err.count("\n") == 1 and "did not answer" in err
    assert not (index / "kb.sqlite").exists()  # refused before anything was written


def test_a_lite_path_inside_the_index_moves_with_it(tmp_path: Path) -> None:
    root = tmp_path / "idx"
    inside = parse_vector_store(f"milvus:{root}/v.db", root)
    assert inside.label == "milvus:v.db" and inside.uri(tmp_path / "moved") == str(tmp_path / "moved" / "v.db")
    outside = parse_vector_store(f"milvus:{tmp_path}/v.db", root)
    assert outside.label == f"milvus:{tmp_path}/v.db"


def _count(index: Path) -> int:
    with sqlite3.connect(index / "kb.sqlite") as db:
        return int(db.execute("SELECT count(*) FROM records").fetchone()[0])


# -- filters as predicates: the same records as SQL ---------------------------------------

DAYS = st.one_of(st.none(), st.dates(dt.date(2026, 8, 30), dt.date(2026, 9, 3)))
WORDS = st.sampled_from([None, "jay", "Jay", "JAY", "Élan", "élan", "数据"])


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(st.tuples(st.sampled_from(list(Kind)), WORDS, WORDS, DAYS), min_size=1, max_size=12),
    kinds=st.lists(st.sampled_from(list(Kind)), max_size=2),
    instance=WORDS,
    topic=WORDS,
    dates=st.tuples(DAYS, DAYS, DAYS),
)
def test_a_predicate_keeps_exactly_the_records_sql_keeps(
    rows: list[tuple[Kind, str | None, str | None, dt.date | None]],
    kinds: list[Kind],
    instance: str | None,
    topic: str | None,
    dates: tuple[dt.date | None, dt.date | None, dt.date | None],
) -> None:
    since, until, not_after = dates
    if since and until and since > until:
        since, until = until, since
    flt = SearchFilter(kinds=kinds, instance=instance, topic=topic, since=since, until=until, not_after=not_after)
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE TABLE records (kind TEXT, instance TEXT, topic TEXT, date TEXT, section TEXT, id TEXT, file TEXT)"
    )
    db.executemany(
        "INSERT INTO records VALUES (?, ?, ?, ?, NULL, '', '')",
        [(k.value, i, t, d.isoformat() if d else None) for k, i, t, d in rows],
    )
    where, params = where_sql(flt)
    by_sql = {r[0] for r in db.execute(f"SELECT rowid FROM records WHERE {where}", params)}
    predicate = Predicate.of(flt)
    assert predicate is not None
    by_fields = {
        n + 1
        for n, (k, i, t, d) in enumerate(rows)
        if predicate.matches(PointFields.of(k.value, i, t, d.isoformat() if d else None))
    }
    assert by_fields == by_sql


def test_a_section_is_not_a_predicate() -> None:
    assert Predicate.of(SearchFilter(section="方法")) is None
