"""A first ingest that fails leaves no index behind (issue 13, item 6): a
model that cannot load, and Ctrl-C while embedding, each leave no new folder
and no empty kb.sqlite, while a failed later ingest keeps the index whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbsearch.cli import main

ROWS = [{"id": f"r{i}", "title": t, "text": f"note {i}: {t}"} for i, t in enumerate(["KV cache 压缩", "TGI 维护模式"])]


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), encoding="utf-8")
    return path


def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, factory: str) -> None:
    path = tmp_path / "models.txt"
    path.write_text(f"fake  python:fake_encoder:{factory} dim=64\n", encoding="utf-8")
    monkeypatch.setenv("KBSEARCH_MODELS", str(path))
    monkeypatch.delenv("KBSEARCH_MODEL", raising=False)


@pytest.mark.parametrize(("factory", "code"), [("unreachable", 2), ("interrupted", 130)])
def test_a_failed_first_ingest_leaves_no_folder(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    source: Path,
    factory: str,
    code: int,
) -> None:
    models(tmp_path, monkeypatch, factory)
    index = tmp_path / "new" / "idx"
    assert main(["ingest", str(source), "--index", str(index)]) == code
    assert not index.exists() and not index.parent.exists()  # nor the parent it made
    err = capsys.readouterr().err
    assert ("unreachable" in err) if factory == "unreachable" else ("interrupted" in err)


@pytest.mark.parametrize("factory", ["unreachable", "interrupted"])
def test_a_folder_that_was_there_stays_and_holds_nothing_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: Path, factory: str
) -> None:
    models(tmp_path, monkeypatch, factory)
    index = tmp_path / "idx"
    index.mkdir()
    (index / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["ingest", str(source), "--index", str(index)]) != 0
    assert sorted(p.name for p in index.iterdir()) == ["notes.txt"]


def test_a_failed_later_ingest_keeps_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], source: Path
) -> None:
    models(tmp_path, monkeypatch, "make")
    index = tmp_path / "idx"
    assert main(["ingest", str(source), "--index", str(index)]) == 0
    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps({"id": "r9", "title": "zero-copy offloading"}) + "\n", encoding="utf-8")
    models(tmp_path, monkeypatch, "interrupted")
    assert main(["ingest", str(more), "--index", str(index)]) == 130
    models(tmp_path, monkeypatch, "make")
    capsys.readouterr()
    assert main(["list", "--index", str(index), "--format", "ids"]) == 0
    assert capsys.readouterr().out.split() == ["r0", "r1"]
