"""The judge model's say in a hybrid search (``kbsearch.search.judge_side``):
its stored whole-text vectors re-read the candidates, each against the best of
its own language, so that the judge's pull towards the query's language does
not decide. A scripted judge sets each cosine; the main model is the fake."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.cli import run_json
from support.files import write, write_jsonl

from fake_encoder import FakeEncoder, ScriptedJudge
from kbsearch.ingest import Judge, ingest_records
from kbsearch.records import Kind, Record
from kbsearch.search import SearchMode, search
from kbsearch.search.judge_side import JudgeQuery
from kbsearch.store import ChangeSet, Store

QUERY = "frequency basis compression of the attention keys"
ANSWER = ("zh-answer", "用三角函数频域基底压缩注意力的键，显存降到十分之一")
OTHER_ZH = [("zh-2", "多租户推理服务的沙箱隔离方案"), ("zh-3", "专家并行的负载均衡调度")]
ENGLISH = [
    ("en-1", "Sandboxed tenants share one serving fleet"),
    ("en-2", "Expert placement balances the MoE load"),
    ("en-3", "Prefix caching lowers time to first token"),
]
# The judge's cosine with the query: English records above the Chinese answer (its pull towards
# the query's language), the answer far above the other Chinese records.
JUDGE_COSINE = {"zh-answer": 0.80, "zh-2": 0.55, "zh-3": 0.50, "en-1": 0.86, "en-2": 0.85, "en-3": 0.84}


def _records() -> list[Record]:
    rows = [ANSWER, *OTHER_ZH, *ENGLISH]
    return [Record(id=rid, kind=Kind.paper_card, text=text, position=n) for n, (rid, text) in enumerate(rows)]


def _store(tmp_path: Path, judged: bool) -> tuple[Store, FakeEncoder, ScriptedJudge]:
    records = _records()
    encoder, judge = FakeEncoder(), ScriptedJudge({r.embed_text(): JUDGE_COSINE[r.id] for r in records})
    store = Store.open(tmp_path / "index", create=True)
    kept = Judge(judge.model_id, lambda: judge) if judged else None
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder, judge=kept)
    return store, encoder, judge


def _first(store: Store, encoder: FakeEncoder, judge: JudgeQuery | None) -> str:
    response = search(store, encoder, QUERY, 3, judge=judge)
    return response.results[0].id


def test_the_judge_finds_the_answer_across_languages(tmp_path: Path) -> None:
    store, encoder, judge = _store(tmp_path, judged=True)
    asked = JudgeQuery("judge", judge.encode([QUERY])[0])
    assert _first(store, encoder, None) != "zh-answer"  # the main model and the words alone miss it
    response = search(store, encoder, QUERY, 3, judge=asked)
    assert response.results[0].id == "zh-answer"
    assert response.judge == "judge"


def test_each_record_is_read_against_its_own_language(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Raw cosines would put the English records first: the judge prefers the query's language."""
    store, encoder, judge = _store(tmp_path, judged=True)
    asked = JudgeQuery("judge", judge.encode([QUERY])[0])
    monkeypatch.setattr("kbsearch.search.reads.CandidateReads.language_or_none", lambda self, rowid: None)
    assert _first(store, encoder, asked).startswith("en-")


def test_an_index_without_the_judges_vectors_ranks_as_before(tmp_path: Path) -> None:
    store, encoder, judge = _store(tmp_path, judged=False)
    asked = JudgeQuery("judge", judge.encode([QUERY])[0])
    plain = [hit.id for hit in search(store, encoder, QUERY, 6).results]
    assert [hit.id for hit in search(store, encoder, QUERY, 6, judge=asked).results] == plain


def test_only_a_hybrid_search_weighs_the_judge(tmp_path: Path) -> None:
    store, encoder, judge = _store(tmp_path, judged=True)
    asked = JudgeQuery("judge", judge.encode([QUERY])[0])
    dense = search(store, encoder, QUERY, 6, mode=SearchMode.dense, judge=asked)
    assert dense.judge is None
    assert [h.id for h in dense.results] == [
        h.id for h in search(store, encoder, QUERY, 6, mode=SearchMode.dense).results
    ]


def test_the_cli_search_names_the_judge_of_an_index_keeping_its_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    models = write(
        tmp_path / "models.txt",
        "fake       python:fake_encoder:make dim=64 judge=fakejudge\nfakejudge  python:fake_encoder:make dim=32\n"
        "alone      python:fake_encoder:make dim=64\n",
    )
    monkeypatch.setenv("KBSEARCH_MODELS", str(models))
    rows = [{"id": r.id, "kind": "paper_card", "text": r.text} for r in _records()]
    cards = write_jsonl(tmp_path / "cards.jsonl", rows)
    run_json(capsys, "ingest", str(cards), "--index", str(tmp_path / "judged"), "--model", "fake")
    run_json(capsys, "ingest", str(cards), "--index", str(tmp_path / "alone"), "--model", "alone")
    assert run_json(capsys, "search", QUERY, "--index", str(tmp_path / "judged"))["judge"] == "fakejudge"
    assert run_json(capsys, "search", QUERY, "--index", str(tmp_path / "judged"), "--mode", "lexical")["judge"] is None
    assert run_json(capsys, "search", QUERY, "--index", str(tmp_path / "alone"))["judge"] is None


def test_a_records_judge_vector_is_read_alike_by_row_id_and_by_record(tmp_path: Path) -> None:
    """A search reads the judge's vectors by row id (``whole_vectors_of``); check reads them by
    record: the same vector for a record with a title, one without, and one whose title is all of it,
    though another record's whole text is one of their claims (so that passage has a vector too)."""
    records = [
        Record(id="titled", kind=Kind.increment, title="TriAttention", text="frequency basis for keys", position=0),
        Record(id="untitled", kind=Kind.increment, text="no title here", claims=["a claim", "another"], position=1),
        Record(id="title-only", kind=Kind.increment, title="Only a title", claims=["its claim"], position=2),
        Record(id="a-claim", kind=Kind.increment, text="a claim", position=3),  # untitled's passage 1
        Record(id="a-title", kind=Kind.increment, text="TriAttention", position=4),  # titled's passage 0
    ]
    encoder, judge = FakeEncoder(), FakeEncoder("judge", 16)
    store = Store.open(tmp_path / "index", create=True)
    kept = Judge("judge", lambda: judge)
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder, judge=kept)
    rowids = store.rowids_of(r.id for r in records)
    by_rowid = {rowids[r.id]: r for r in records}
    by_record = store.judge_vectors(by_rowid, "judge")
    by_id = store.judge_vectors(list(by_rowid), "judge")
    assert by_record.keys() == by_id.keys() == by_rowid.keys()
    for rowid, record in by_rowid.items():
        assert np.array_equal(by_id[rowid], by_record[rowid])
        assert np.allclose(by_id[rowid], judge.encode([record.embed_text()])[0], atol=1e-6)
