"""An ingest leaves the judge's whole-text vectors to the background fill
(``kbsearch/kb/judge_fill.py``): the readers compute a missing one on demand
(``kbsearch/store/judge_vectors.py``), with the same verdicts as an index
whose ingest embedded them, and the fill writes them. With the fake encoder;
the fill's process is never started here (``token_fill.start`` is replaced),
its work is called in this process."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import EXAMPLES
from filelock import FileLock
from support.cli import run
from support.files import write, write_jsonl
from test_judge import FAKE_JUDGE_DEDUPE, ITEM, KNOWN

import kbsearch.kb.token_fill as token_fill
from fake_encoder import FakeEncoder
from kbsearch.kb import KnowledgeBase
from kbsearch.kb.judge_fill import fill_judge, pending
from kbsearch.models import resolve_model
from kbsearch.records import text_hash
from kbsearch.render.reports import ingest_text

A_RECORD = "jay/2026-09-17-jay-inference-e1prep#1"


@pytest.fixture(autouse=True)
def judged_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """models.txt: ``fake`` judged by ``fakejudge``; the fill's process is not started, only noted."""
    path = write(
        tmp_path / "models.txt",
        f"fake       python:fake_encoder:make dim=64 judge=fakejudge dedupe={FAKE_JUDGE_DEDUPE}\n"
        "fakejudge  python:fake_encoder:make dim=32\n",
    )
    monkeypatch.setenv("KBSEARCH_MODELS", str(path))
    started: list[Path] = []
    monkeypatch.setattr(token_fill, "start", lambda root, model: started.append(root))
    return started


def _kb(root: Path, judge: FakeEncoder) -> KnowledgeBase:
    return KnowledgeBase(root, resolve_model("fake"), create=True, encoder=FakeEncoder(), judge=judge)


def _filling(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    """The fill on (the default outside the tests) or off (as conftest sets it)."""
    monkeypatch.setenv("KBSEARCH_TOKEN_FILL", "20000" if on else "0")


def _stored_judge(root: Path) -> set[str]:
    with KnowledgeBase(root, resolve_model("fake"), encoder=FakeEncoder()) as kb:
        return {h for (h,) in kb.store.db.execute("SELECT content_hash FROM vectors WHERE model = 'fakejudge'")}


def _wholes(kb: KnowledgeBase) -> set[str]:
    return {text_hash(r.embed_text()) for r in kb.store.iter_records()}


def _verdicts(result: Any) -> list[dict[str, Any]]:
    return [item.model_dump(exclude={"seconds"}) for item in result.items]


def test_a_deferred_ingest_then_a_check_gives_the_verdict_of_an_inline_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judged_models: list[Path]
) -> None:
    known, item = write_jsonl(tmp_path / "known.jsonl", KNOWN), write_jsonl(tmp_path / "item.jsonl", [ITEM])
    results = {}
    for name, on in (("inline", False), ("deferred", True)):
        _filling(monkeypatch, on)
        judge = FakeEncoder("fakejudge", 32)
        with _kb(tmp_path / name, judge) as kb:
            report = kb.ingest([known])
            assert (report.judge_embedded, report.judge_deferred) == ((0, 2) if on else (2, 0))
            seen = judge.texts_seen
            results[name] = kb.check(str(item))
            # The deferred index's two records are embedded now, beside the item; the inline one's are read.
            assert judge.texts_seen - seen == (3 if on else 1)
    assert _stored_judge(tmp_path / "deferred") == set()  # nothing written by the check: the fill writes
    assert judged_models == [tmp_path / "deferred"]  # the fill was started by the deferred ingest alone
    assert _verdicts(results["deferred"]) == _verdicts(results["inline"])
    assert results["deferred"].items[0].matches[0].features["judge_cosine"] > 0.5


def test_audit_and_related_compute_the_vectors_a_record_lacks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = {}
    for name, on in (("inline", False), ("deferred", True)):
        _filling(monkeypatch, on)
        judge = FakeEncoder("fakejudge", 32)
        with _kb(tmp_path / name, judge) as kb:
            report = kb.ingest([EXAMPLES])
            seen = judge.texts_seen
            audit, similar = kb.audit(), kb.similar(A_RECORD)
            computed = judge.texts_seen - seen
            assert (computed >= report.judge_deferred > 0) if on else computed == 0
            answers[name] = (
                [c.model_dump(exclude={"seconds"}) for c in audit.clusters],
                [(m.id, m.same_item, m.features) for m in similar.matches],
            )
    assert answers["deferred"] == answers["inline"]
    assert answers["inline"][0] and all("judge_cosine" in m[2] for m in answers["inline"][1])


def test_the_fill_writes_what_the_ingest_left_and_a_second_fill_finds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _filling(monkeypatch, True)
    root = tmp_path / "idx"
    with _kb(root, FakeEncoder("fakejudge", 32)) as kb:
        report = kb.ingest([EXAMPLES])
        wholes = _wholes(kb)
        texts = {text_hash(r.embed_text()): r.embed_text() for r in kb.store.iter_records()}
    assert report.judge_deferred == len(wholes) > 0 and report.judge_embedded == 0
    assert f"{len(wholes)} left to the judge's background fill" in ingest_text(report)
    assert pending(root, "fakejudge") and _stored_judge(root) == set()
    judge = FakeEncoder("fakejudge", 32)
    assert fill_judge(root, "fakejudge", lambda: judge) == len(wholes) == judge.texts_seen
    assert _stored_judge(root) == wholes and not pending(root, "fakejudge")
    with KnowledgeBase(root, resolve_model("fake"), encoder=FakeEncoder()) as kb:
        rowids = kb.store.all_rowids()
        stored = kb.store.judge_vectors(rowids, "fakejudge")  # read, none computed (no judge on demand)
        records = kb.store.by_rowids(rowids)
    for rowid, record in records.items():  # the vector an inline ingest would have written
        assert np.allclose(stored[rowid], judge.encode([record.embed_text()])[0])
    assert texts and fill_judge(root, "fakejudge", lambda: pytest.fail("a second fill loaded the judge")) == 0


class _HeldEncoder(FakeEncoder):
    """A judge whose first call waits until the test lets it go: a fill caught mid-batch."""

    def __init__(self) -> None:
        super().__init__("fakejudge", 32)
        self.inside, self.go = threading.Event(), threading.Event()

    def encode(self, texts: Any) -> np.ndarray:
        self.inside.set()
        assert self.go.wait(30)
        return super().encode(texts)


def test_a_users_ingest_during_a_fill_completes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _filling(monkeypatch, True)
    monkeypatch.setenv("KBSEARCH_LOCK_TIMEOUT", "3")  # a fill holding the writer lock while it encodes fails this
    root = tmp_path / "idx"
    with _kb(root, FakeEncoder("fakejudge", 32)) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
    held = _HeldEncoder()
    filled: list[int] = []
    fill = threading.Thread(target=lambda: filled.append(fill_judge(root, "fakejudge", lambda: held)))
    fill.start()
    try:
        assert held.inside.wait(30)
        with _kb(root, FakeEncoder("fakejudge", 32)) as kb:
            report = kb.ingest([write_jsonl(tmp_path / "item.jsonl", [ITEM])])
        assert report.added == 1 and report.judge_deferred == 1 and report.waited < 1
    finally:
        held.go.set()
        fill.join(30)
    assert filled == [2]  # the fill's batch written after the user's ingest
    assert pending(root, "fakejudge")  # the new record: the next fill's (token_fill.main goes round again)
    assert fill_judge(root, "fakejudge", lambda: FakeEncoder("fakejudge", 32)) == 1 and not pending(root, "fakejudge")


def test_doctor_says_a_fill_is_under_way_rather_than_reindex(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _filling(monkeypatch, True)
    root = tmp_path / "idx"
    with _kb(root, FakeEncoder("fakejudge", 32)) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
    with FileLock(str(root / token_fill.FILL_LOCK)):  # a fill at work
        code, out, _ = run(capsys, "doctor", "--index", str(root))
    assert code == 0 and "2 record texts have no vector of the judge 'fakejudge' yet" in out
    assert "background fill" in out and "reindex" not in out
    code, out, _ = run(capsys, "doctor", "--index", str(root))  # no fill: a killed one left them
    assert code == 2 and "kbsearch reindex" in out


def test_a_search_before_the_fill_weighs_the_judge_as_after_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A candidate without a stored judge vector is not left out of the judge's say: the ranking a
    search gives while the fill runs is the one it gives once the vectors are written."""
    rankings = {}
    for name, on in (("inline", False), ("deferred", True)):
        _filling(monkeypatch, on)
        judge = FakeEncoder("fakejudge", 32)
        with _kb(tmp_path / name, judge) as kb:
            kb.ingest([EXAMPLES])
            seen = judge.texts_seen
            response = kb.search("KV cache memory on GPUs", k=5)
            assert response.judge == "fakejudge" and (judge.texts_seen - seen > 1) == on  # the query, and candidates
            rankings[name] = [(r.id, round(r.score, 6)) for r in response.results]
    assert rankings["deferred"] == rankings["inline"]


def test_a_fill_goes_round_again_for_what_an_ingest_left_while_it_ran(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ingest that wrote while a fill ran found the fill's lock taken: the running fill does its records."""
    rounds: list[Path] = []
    answers = iter([True, False])  # after the first round, some record lacks its judge vector
    monkeypatch.setattr(token_fill, "fill", lambda root, model: rounds.append(root))
    monkeypatch.setattr(token_fill, "pending", lambda root, judge: next(answers))
    monkeypatch.setattr(token_fill.os, "nice", lambda step: 0)
    assert token_fill.main([str(tmp_path), "fake"]) == 0 and rounds == [tmp_path, tmp_path]


def test_doctor_asking_whether_a_fill_runs_makes_no_lock_file(tmp_path: Path) -> None:
    """No lock file: no fill ever ran, and a read-only index's doctor must not try to make one."""
    assert not token_fill.running(tmp_path) and not (tmp_path / token_fill.FILL_LOCK).exists()
    with FileLock(str(tmp_path / token_fill.FILL_LOCK)):
        assert token_fill.running(tmp_path)
    assert not token_fill.running(tmp_path)


class _RunDependentJudge(FakeEncoder):
    """A judge whose vector of a text moves with the texts run beside it, as int8 e5's did in
    runs of many texts (before each text ran alone, ``OnnxE5.encode``): what a deferral must not have."""

    def encode(self, texts: Any) -> np.ndarray:
        own = super().encode(texts)
        moved = own + 0.3 * own.mean(axis=0, keepdims=True)
        return moved / np.linalg.norm(moved, axis=1, keepdims=True)


def _check_before_and_after_the_fill(tmp_path: Path, make_judge: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A deferred ingest of the examples and the known records, the item checked before the fill
    (every candidate's judge vector computed then) and after it (read as the fill wrote them)."""
    root, item = tmp_path / "idx", write_jsonl(tmp_path / "item.jsonl", [ITEM])
    with _kb(root, make_judge()) as kb:
        report = kb.ingest([EXAMPLES, write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        assert report.judge_deferred > 2 and report.judge_embedded == 0
        before = kb.check(str(item)).model_dump(exclude={"seconds"})
    assert _stored_judge(root) == set()
    assert fill_judge(root, "fakejudge", make_judge) == report.judge_deferred and not pending(root, "fakejudge")
    judge = make_judge()
    with _kb(root, judge) as kb:
        after = kb.check(str(item)).model_dump(exclude={"seconds"})
    assert judge.texts_seen <= 2  # the item's whole text and claims: the records' vectors were read
    return before, after


def test_a_checks_result_is_the_same_before_and_after_the_fill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Verdict, scores, claims and evidence, all of a check's result: the judge's vector of a
    record computed by a check before the fill is the one the fill writes. Stop 66's deferral was
    reverted because it was not (a vector depended on its run); the run-dependent judge shows
    this comparison sees that."""
    _filling(monkeypatch, True)
    before, after = _check_before_and_after_the_fill(tmp_path / "own", lambda: FakeEncoder("fakejudge", 32))
    (match, *_), claims = before["items"][0]["matches"], before["items"][0]["claims"]
    assert before["items"][0]["verdict"] != "NEW" and match["features"]["judge_cosine"] > 0.5 and claims
    assert after == before
    moved = _check_before_and_after_the_fill(tmp_path / "moved", lambda: _RunDependentJudge("fakejudge", 32))
    assert moved[0] != moved[1]
