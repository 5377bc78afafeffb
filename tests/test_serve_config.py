"""``check``, ``explain`` and ``similar --config FILE`` through a running server: the server
takes the whole ``calibrate --out`` file, validates it as a local run reads it, and the
output is the local run's (it once refused the file: ``config.model: Input should be a
valid number``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FAKE_CONFIG_NOTE, FAKE_DEDUPE
from serve_support import BRIEFING, Running, normalized
from support.cli import run


def calibrated(folder: Path, **changes: object) -> str:
    """A ``calibrate --out`` file for the fake model, with ``changes``."""
    fields = {**json.loads(FAKE_DEDUPE.read_text(encoding="utf-8")), "candidates": 7, **changes}
    (folder / "calib.json").write_text(json.dumps(fields, indent=2), encoding="utf-8")
    return "calib.json"


@pytest.fixture
def briefed(served: tuple[Running, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Running, Path]:
    """The running server and its index, from a folder holding ``brief.md``, with the read token set."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "brief.md").write_text(BRIEFING, encoding="utf-8")
    monkeypatch.setenv("KBSEARCH_TOKEN", served[0].read_token)
    return served


def test_check_and_explain_with_a_config_file_answer_through_the_server_as_locally(
    briefed: tuple[Running, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, index = briefed
    config = calibrated(tmp_path)
    for argv in (["check", "brief.md"], ["explain", "tri-jay", "tri-spark"], ["similar", "tri-jay"]):
        for output in ([], ["--json"]):
            local = run(capsys, *argv, "--config", config, *output, "--index", str(index), "--local")
            remote = run(capsys, *argv, "--config", config, *output, "--server", server.url)
            assert local[0] in (0, 1) and remote[0] == local[0], (argv, remote[2])
            assert normalized(remote[1]) == normalized(local[1]), argv


def test_a_config_the_server_refuses_is_said_as_locally_naming_the_file(
    briefed: tuple[Running, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, index = briefed
    for changes, said in (
        ({"model": "other"}, "the dedupe config was fitted for model 'other', not 'fake'"),
        ({"candidates": 0}, "bad dedupe config: candidates: Input should be greater than or equal to 1"),
        ({"same_item": {"features": ["nope"]}}, "bad dedupe config: same_item."),
    ):
        config = calibrated(tmp_path, **changes)
        for argv in (["check", "brief.md"], ["similar", "tri-jay"]):
            local = run(capsys, *argv, "--config", config, "--index", str(index), "--local")
            remote = run(capsys, *argv, "--config", config, "--server", server.url)
            assert local[0] == remote[0] == 2 and said in local[2] and "calib.json" in local[2], local[2]
            assert remote[2] == local[2]


def test_a_check_names_the_config_file_that_decided_it_locally_and_through_the_server(
    briefed: tuple[Running, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, index = briefed
    config = calibrated(tmp_path)
    note = "decided with the dedupe config calib.json, not the one model 'fake' reads by default"
    for where in (["--index", str(index), "--local"], ["--server", server.url]):
        text = run(capsys, "check", "brief.md", "--config", config, *where)[1]
        assert f"note: {note}" in text.splitlines(), where
        document = json.loads(run(capsys, "check", "brief.md", "--config", config, "--json", *where)[1])
        assert note in document["notes"], where
    # Without --config, the config models.txt names (dedupe=FILE) decides, and the note says so.
    for where in (["--index", str(index), "--local"], ["--server", server.url]):
        document = json.loads(run(capsys, "check", "brief.md", "--json", *where)[1])
        assert document["notes"] == [FAKE_CONFIG_NOTE], where
        assert f"note: {FAKE_CONFIG_NOTE}" in run(capsys, "check", "brief.md", *where)[1].splitlines(), where


def test_the_models_txt_note_names_a_file_only() -> None:
    """A config file a models.txt line names gets the note; the shipped config (or a borrowed
    one, dedupe=MODEL) is the model's own and gets none."""
    from kbsearch.dedupe.given_config import decided_by
    from kbsearch.models import ModelSpec

    spec = ModelSpec(name="m", source="python:fake_encoder:make", dim=64, dedupe="/somewhere/calib.json")
    note = "decided with the dedupe config calib.json, which models.txt names for model 'm' (dedupe=calib.json)"
    assert decided_by(spec, None) == [note]
    assert decided_by(spec, "mine.json") == [
        "decided with the dedupe config mine.json, not the one model 'm' reads by default"
    ]
    for own in (None, "multilingual-e5-small"):
        assert decided_by(spec.model_copy(update={"dedupe": own}), None) == []
