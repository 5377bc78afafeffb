"""A search-only model: ``dedupe=none`` on its models.txt line says it has no dedupe config
on purpose. Search and ingest use it; doctor calls it search-only, no problem and no fix;
check, audit, similar and explain refuse it in one line naming the line and what to do."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import run
from support.files import write_jsonl

from kbsearch.kb.doctor import examine
from kbsearch.models import load_models

ROWS = [
    {"id": "a", "title": "TideServe prefill", "text": "TideServe splits prefill from decode", "date": "2026-09-19"},
    {"id": "b", "title": "Pebble KV", "text": "Pebble quantises the KV cache to 3 bits", "date": "2026-09-20"},
]


@pytest.fixture
def search_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    """A models.txt whose default model is search-only, and an index of it."""
    models = tmp_path / "models.txt"
    models.write_text("# mine\nplain  python:fake_encoder:make dim=64 dedupe=none\n", encoding="utf-8")
    monkeypatch.setenv("KBSEARCH_MODELS", str(models))
    for name in ("KBSEARCH_MODEL", "KBSEARCH_SERVER"):
        monkeypatch.delenv(name, raising=False)
    code, _, err = run(
        capsys, "ingest", str(write_jsonl(tmp_path / "known.jsonl", ROWS)), "--index", str(tmp_path / "idx")
    )
    assert code == 0, err
    return tmp_path


def test_dedupe_none_parses_as_search_only(tmp_path: Path) -> None:
    path = tmp_path / "models.txt"
    path.write_text("plain  python:fake_encoder:make dim=64 dedupe=none\nfull  python:fake_encoder:make\n")
    plain, full = load_models(path)
    assert plain.search_only and plain.dedupe == "none"
    assert not full.search_only


def test_doctor_calls_a_search_only_model_healthy_with_no_fix(search_only: Path) -> None:
    report = examine(search_only / "idx")
    models = next(f for f in report.findings if f.check == "models")
    assert report.healthy and models.ok and models.fix is None
    assert models.message.endswith(
        "search-only (dedupe=none): search and ingest use it; check, audit, similar and explain refuse it"
    )


def test_search_works_and_check_audit_similar_explain_refuse_in_one_line(
    search_only: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(search_only / "idx")
    code, out, err = run(capsys, "search", "TideServe", "--index", index)
    assert code == 0 and "TideServe" in out, err
    models = search_only / "models.txt"
    for argv in (
        ["check", str(search_only / "known.jsonl")],
        ["audit"],
        ["similar", "a"],
        ["explain", "a", "b"],
    ):
        code, out, err = run(capsys, *argv, "--index", index)
        assert code == 2 and out == "", argv
        [line] = err.strip().splitlines()
        assert line.startswith(
            f"kbsearch: {models}:2: model 'plain' is search-only (dedupe=none): it has no dedupe config for "
            "check, audit, similar or explain (fit one with 'kbsearch calibrate"
        ), argv
        assert line.endswith("or use an index of another model (--model NAME))"), line


def test_the_token_fill_after_an_ingest_fills_nothing_for_a_search_only_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only check reads what it fills; config_for raised for the model (no dedupe config)."""
    import kbsearch.kb.token_fill as token_fill
    from kbsearch.models import ModelSpec

    spec = ModelSpec(name="plain", source="python:fake_encoder:make", dim=64, dedupe="none", judge="fakejudge")
    monkeypatch.setattr(token_fill, "resolve_model", lambda name: spec)
    monkeypatch.setattr(token_fill, "resolve_judge", lambda spec: spec.model_copy(update={"name": "fakejudge"}))
    assert token_fill.fill(tmp_path / "idx", "plain") == 0
