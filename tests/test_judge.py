"""The judge model (models.txt ``judge=``): its whole-text vectors are stored
beside the index model's, embedded once, read by check and audit, and an
index refuses a judge other than its own. With the fake encoder."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import EXAMPLES, FAKE_DEDUPE, ROOT
from support.cli import run, run_json
from support.files import write, write_jsonl
from support.timing import assert_phases_make_the_total

import kbsearch.runtime.timings as timings
from fake_encoder import ConstantEncoder, FakeEncoder
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.config_files import load_config
from kbsearch.errors import KbError
from kbsearch.kb import KnowledgeBase
from kbsearch.models import load_models, resolve_model
from kbsearch.records import text_hash

FAKE_JUDGE_DEDUPE = ROOT / "tests" / "data" / "fake-judge-dedupe.json"
KNOWN = [
    {"id": "k-tri", "title": "TriAttention compresses the KV cache", "instance": "jay", "date": "2026-09-17",
     "text": "TriAttention keeps the keys in a trigonometric frequency basis and cuts KV memory by 6x"},
    {"id": "k-tgi", "title": "TGI enters maintenance mode", "instance": "spark", "date": "2026-09-01",
     "text": "Hugging Face TGI accepts only bug fixes now and points users to vLLM or SGLang"},
]  # fmt: skip
ITEM = {"id": "i-tri", "title": "TriAttention compresses the KV cache", "instance": "tom", "date": "2026-09-18",
        "text": "TriAttention keeps keys in a frequency basis; KV memory falls by 6x"}  # fmt: skip


@pytest.fixture
def judged_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """models.txt: ``fake`` with the judge ``fakejudge``; ``alone``, the same fake deciding alone."""
    path = write(
        tmp_path / "models.txt",
        f"fake       python:fake_encoder:make dim=64 judge=fakejudge dedupe={FAKE_JUDGE_DEDUPE}\n"
        "fakejudge  python:fake_encoder:make dim=32\n"
        "broken     python:fake_encoder:broken dim=32\n",
    )
    monkeypatch.setenv("KBSEARCH_MODELS", str(path))
    return path


def _models_without_judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judge: str = "") -> None:
    """The same models.txt with ``fake``'s judge dropped (or replaced): a user turning it off."""
    option = f" judge={judge}" if judge else ""
    dedupe = FAKE_JUDGE_DEDUPE if judge == "fakejudge" else FAKE_DEDUPE
    path = write(
        tmp_path / "models-2.txt",
        f"fake       python:fake_encoder:make dim=64{option} dedupe={dedupe}\n"
        "fakejudge  python:fake_encoder:make dim=32\n"
        "otherjudge python:fake_encoder:make dim=16\n",
    )
    monkeypatch.setenv("KBSEARCH_MODELS", str(path))


def _kb(root: Path, judge: FakeEncoder | None = None, encoder: FakeEncoder | None = None) -> KnowledgeBase:
    return KnowledgeBase(
        root, resolve_model("fake"), create=True, encoder=encoder or FakeEncoder(), judge=judge or judge_encoder()
    )


def judge_encoder() -> FakeEncoder:
    return FakeEncoder("fakejudge", 32)


def _stored_judge_hashes(kb: KnowledgeBase) -> set[str]:
    rows = kb.store.db.execute("SELECT content_hash FROM vectors WHERE model = 'fakejudge'")
    return {r[0] for r in rows}


def test_models_txt_names_a_judge_and_an_unknown_one_is_an_error(judged_models: Path, tmp_path: Path) -> None:
    specs = {s.name: s for s in load_models(judged_models)}
    assert specs["fake"].judge == "fakejudge" and specs["fakejudge"].judge is None
    bad = write(tmp_path / "bad.txt", "fake python:fake_encoder:make dim=64 judge=nosuch\n")
    with pytest.raises(KbError, match=r"judge 'nosuch'.*does not list") as err:
        load_models(bad)
    assert str(bad) in str(err.value) and "drop judge=" in str(err.value)


def test_the_judge_embeds_each_whole_text_once_and_never_again(judged_models: Path, tmp_path: Path) -> None:
    judge = judge_encoder()
    with _kb(tmp_path / "idx", judge) as kb:
        first = kb.ingest([EXAMPLES])
        wholes = {text_hash(r.embed_text()) for r in kb.store.iter_records()}
        assert first.judge_embedded == len(wholes) == judge.texts_seen > 0
        assert _stored_judge_hashes(kb) == wholes  # one vector per whole text, none per title or claim
        assert kb.stats().judge == "fakejudge"
        calls = judge.calls
        again = kb.ingest([EXAMPLES])
        assert (again.embedded, again.judge_embedded, again.unchanged) == (0, 0, first.records)
        assert judge.calls == calls  # re-ingest of unchanged input embeds nothing, for either model


def test_check_embeds_only_the_items_and_reads_the_known_judge_vectors(judged_models: Path, tmp_path: Path) -> None:
    judge = judge_encoder()
    with _kb(tmp_path / "idx", judge) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        seen = judge.texts_seen
        result = kb.check(str(write_jsonl(tmp_path / "item.jsonl", [ITEM])))
        assert judge.texts_seen == seen + 1  # the item's whole text; the known ones come from the store
        match = next(m for m in result.items[0].matches if m.id == "k-tri")
        stored = judge.encode([kb.store.get("k-tri").embed_text()])[0]  # type: ignore[union-attr]
        fresh = judge.encode([ITEM["title"] + "\n" + ITEM["text"]])[0]
        assert match.features["judge_cosine"] == pytest.approx(float(stored @ fresh), abs=1e-4)
        assert "judge_relative" in match.features


def test_the_judge_decides_with_the_index_model(judged_models: Path, tmp_path: Path) -> None:
    """The same pair, judged by a judge that calls everything alike and by one
    that calls nothing alike: the judge's cosine moves the decision."""
    verdicts = {}
    for name, judge in (("alike", ConstantEncoder("fakejudge", 32)), ("apart", judge_encoder())):
        with _kb(tmp_path / name, judge) as kb:
            kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
            other = {**ITEM, "id": "i-other", "title": "TGI", "text": "SGLang maintenance"}
            item = kb.check(str(write_jsonl(tmp_path / "item.jsonl", [other]))).items[0]
            tgi = next(m for m in item.matches if m.id == "k-tgi")
            verdicts[name] = (tgi.same_item, tgi.features["judge_cosine"])
    assert verdicts["alike"] == (True, pytest.approx(1.0))
    assert verdicts["apart"][0] is False and verdicts["apart"][1] < 0.9


def test_audit_similar_and_explain_read_the_stored_judge_vectors(judged_models: Path, tmp_path: Path) -> None:
    judge = judge_encoder()
    with _kb(tmp_path / "idx", judge) as kb:
        kb.ingest([EXAMPLES])
        calls = judge.calls
        audit = kb.audit()
        similar = kb.similar("jay/2026-09-17-jay-inference-e1prep#1")
        assert judge.calls == calls
        # explain embeds A as check embeds an incoming item (probe 26), and no stored record.
        explained = kb.explain("jay/2026-09-17-jay-inference-e1prep#1", "spark/2026-09-18-spark-llm-infra-e1prep#1")
        assert judge.calls - calls == 1  # A alone, once: for explain's reading and check re-run on A
    assert audit.clusters and all("judge_cosine" in m.features for m in similar.matches)
    assert "judge_cosine" in explained.match.features


def test_search_never_loads_the_judge(judged_models: Path, tmp_path: Path) -> None:
    with _kb(tmp_path / "idx") as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
    spec = resolve_model("fake").model_copy(update={"judge": "broken"})
    with KnowledgeBase(tmp_path / "idx", spec, encoder=FakeEncoder()) as kb:
        assert kb.search("TriAttention", k=1).results[0].id == "k-tri"
        assert kb.listing().total == 2


def test_timings_name_the_phases_of_an_ingest_with_a_judge(
    judged_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each second of an ingest lands in a named phase: the judge's pass over the
    whole texts (on a thread beside the index model's, so reported beside) apart
    from the index model's over the passages (issue 26)."""
    monkeypatch.setenv("KBSEARCH_TIMINGS", "1")
    known = write_jsonl(tmp_path / "known.jsonl", KNOWN)
    code, _, err = run(capsys, "ingest", str(known), "--index", str(tmp_path / "idx"))
    assert code == 0, err
    report = next(x for x in err.splitlines() if x.startswith(timings.PREFIX))
    phases = json.loads(report.removeprefix(timings.PREFIX))
    named = {"read input", "plan", "embed", "beside: judge embed", "judge embed wait", "write", "vector index"}
    assert named <= set(phases), sorted(named - set(phases))
    assert_phases_make_the_total(phases)


def test_a_judge_that_cannot_load_says_so_and_names_the_fix(
    judged_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        judged_models,
        f"fake   python:fake_encoder:make dim=64 judge=broken dedupe={FAKE_JUDGE_DEDUPE}\n"
        "broken python:fake_encoder:broken dim=32\n",
    )
    known = write_jsonl(tmp_path / "known.jsonl", KNOWN)
    code, _, err = run(capsys, "ingest", str(known), "--index", str(tmp_path / "idx"))
    assert code == 2
    assert "the judge model 'broken' of 'fake' cannot be loaded: No module named 'onnxruntime'" in err
    assert f"drop judge= from the line of 'fake' in {judged_models}" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "idx").exists()  # nothing was created


def test_an_index_refuses_another_judge_and_names_the_fix(
    judged_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "idx"
    with _kb(index) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        generation = kb.store.generation
    item = str(write_jsonl(tmp_path / "item.jsonl", [ITEM]))
    for judge, expected in (("", "names no judge"), ("otherjudge", "not 'otherjudge'")):
        _models_without_judge(tmp_path, monkeypatch, judge)
        for argv in (("check", item), ("ingest", item), ("audit",)):
            code, _, err = run(capsys, *argv, "--index", str(index))
            assert code == 2 and expected in err and "kbsearch reindex" in err, (argv, err)
    with KnowledgeBase(index, resolve_model("fake"), encoder=FakeEncoder()) as kb:
        assert kb.store.generation == generation and kb.store.count() == len(KNOWN)  # nothing changed


def test_doctor_reports_the_models_check_and_ingest_refuse_in_their_words(
    judged_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """doctor said healthy (exit 0) while every check and ingest refused the
    models file: it never asked the binding check they make."""
    index = tmp_path / "idx"
    with _kb(index) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
    item = str(write_jsonl(tmp_path / "item.jsonl", [ITEM]))
    assert run_json(capsys, "doctor", "--index", str(index))["healthy"]
    another_first = write(
        tmp_path / "models-3.txt", "fake2 python:fake_encoder:make dim=32\n" + judged_models.read_text()
    )
    monkeypatch.setenv("KBSEARCH_MODELS", str(another_first))  # the index's own model, not the first line
    assert run_json(capsys, "doctor", "--index", str(index))["healthy"]
    for models in ("no judge", "another judge", "fake2 asked for"):
        if models == "fake2 asked for":
            monkeypatch.setenv("KBSEARCH_MODELS", str(another_first))
            monkeypatch.setenv("KBSEARCH_MODEL", "fake2")
        else:
            _models_without_judge(tmp_path, monkeypatch, "" if models == "no judge" else "otherjudge")
        for argv in (("check", item), ("ingest", item)):
            code, _, err = run(capsys, *argv, "--index", str(index))
            assert code == 2, (models, argv, err)
        report = run_json(capsys, "doctor", "--index", str(index), codes=(2,))
        finding = next(f for f in report["findings"] if f["check"] == "models")
        assert not report["healthy"] and not finding["ok"]
        assert err.strip() == f"kbsearch: {finding['message']} ({finding['fix']})", models


def test_a_models_mismatch_names_the_models_file_in_use(
    judged_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The message said 'models.txt' whatever $KBSEARCH_MODELS named, and quoted "'fake''s line"."""
    index = tmp_path / "idx"
    with _kb(index) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
    _models_without_judge(tmp_path, monkeypatch)
    code, _, err = run(capsys, "check", str(write_jsonl(tmp_path / "item.jsonl", [ITEM])), "--index", str(index))
    models = tmp_path / "models-2.txt"
    assert code == 2 and f"names no judge in {models} (add judge=fakejudge to the line of 'fake' in {models}," in err
    assert "''s" not in err


def test_reindex_adds_the_judge_to_an_index_without_one_and_drops_it(
    judged_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "idx"
    _models_without_judge(tmp_path, monkeypatch)  # an index built before the judge
    with KnowledgeBase(index, resolve_model("fake"), create=True, encoder=FakeEncoder()) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        assert kb.store.judge is None
    monkeypatch.setenv("KBSEARCH_MODELS", str(judged_models))
    judge = judge_encoder()
    with KnowledgeBase(index, resolve_model("fake"), encoder=FakeEncoder(), judge=judge) as kb:
        with pytest.raises(KbError, match="has no judge vectors") as err:
            kb.check(str(write_jsonl(tmp_path / "item.jsonl", [ITEM])))
        assert "kbsearch reindex" in str(err.value) and "drop judge=" in str(err.value)
        report = kb.reindex()
        assert (report.judge, report.embedded, report.judge_embedded) == ("fakejudge", 0, len(KNOWN))
        assert kb.check(str(tmp_path / "item.jsonl")).items[0].matches[0].features["judge_cosine"] > 0
        assert kb.reindex().judge_embedded == 0  # a second reindex embeds nothing
    _models_without_judge(tmp_path, monkeypatch)  # the user turns the judge off
    with KnowledgeBase(index, resolve_model("fake"), encoder=FakeEncoder()) as kb:
        assert kb.reindex().judge is None and kb.store.judge is None
        assert "judge_cosine" not in kb.check(str(tmp_path / "item.jsonl")).items[0].matches[0].features


def test_doctor_finds_records_without_a_judge_vector(
    judged_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "idx"
    with _kb(index) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        one = "SELECT content_hash FROM vectors WHERE model = 'fakejudge' LIMIT 1"
        kb.store.db.execute(f"DELETE FROM vectors WHERE model = 'fakejudge' AND content_hash = ({one})")
    code, out, _ = run(capsys, "doctor", "--index", str(index))
    assert code == 2 and "have no vector of the judge 'fakejudge'" in out and "kbsearch reindex" in out


def test_a_config_fitted_with_a_judge_needs_that_judge() -> None:
    raw = json.loads(FAKE_JUDGE_DEDUPE.read_text(encoding="utf-8"))
    with pytest.raises(ValueError, match="read a judge model"):
        DedupeConfig.model_validate({**raw, "judge": None})
    only_top = {**raw["same_item"], "features": ["cosine", "judge_top"], "weights": [1.0, 1.0]}
    only_top.update(means=[0.0, 0.0], scales=[1.0, 1.0])
    with pytest.raises(ValueError, match=r"\['judge_top'\] read a judge model"):
        DedupeConfig.model_validate({**raw, "judge": None, "same_item": only_top})
    with pytest.raises(KbError, match="fitted with judge 'fakejudge', and model 'fake' names judge 'other'"):
        load_config(FAKE_JUDGE_DEDUPE, "fake", judge="other")
    assert load_config(FAKE_DEDUPE, "fake", judge="fakejudge").judge is None  # a judge it does not read


def test_the_shipped_default_has_a_judge_and_a_config_for_the_pair() -> None:
    from kbsearch.dedupe.config_files import config_for

    specs = load_models(ROOT / "models.txt")
    default = specs[0]
    assert (default.name, default.judge) == ("use-multilingual-v3", "multilingual-e5-small")
    config = config_for(default)
    assert (config.model, config.judge) == ("use-multilingual-v3", "multilingual-e5-small")
    assert {"judge_cosine", "judge_relative", "top", "judge_top"} <= set(config.same_item.features)
    alone = {s.name: config_for(s.model_copy(update={"judge": None})) for s in specs[:2]}
    assert all(c.judge is None and "judge_cosine" not in c.same_item.features for c in alone.values())
    assert np.isfinite(config.same_item.bias)
