"""One file, one stored source, whatever the working directory (probe 21).

A server started in another folder than its agents resolved their relative
``path`` against its own working directory: the same file got a second
spelling, and each accept of it replaced its records. An index written before
the server resolved paths at all holds them relative (``inbox/…``); those
still name the same file.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import BRIEFING, AsgiClient, build_index, service_for
from support.cli import run

from kbsearch.kb import KnowledgeBase
from kbsearch.serve.http import build_app
from kbsearch.serve.service import Service
from kbsearch.serve.tokens import WRITE_TOKEN, Tokens

NAME = "inbox/stephen/2026-09-21-inference-e1prep.md"


@pytest.fixture
def project(fake_models: Path, tmp_path: Path) -> Path:
    """A team's folder: the index (idx/) beside the published briefing."""
    folder = tmp_path / "proj"
    folder.mkdir()
    build_index(folder)
    (folder / NAME).parent.mkdir(parents=True)
    (folder / NAME).write_text(BRIEFING, encoding="utf-8")
    return folder


@pytest.fixture
def service(project: Path) -> Iterator[Service]:
    service = service_for(project / "idx", lock_timeout=5.0)
    yield service
    service.close()


def generation(index: Path) -> int:
    with KnowledgeBase.open(index) as kb:
        return kb.stats().generation


def accept_here(capsys: pytest.CaptureFixture[str], name: str, index: Path) -> dict[str, object]:
    code, out, err = run(capsys, "check", name, "--accept", "--index", str(index), "--json")
    assert code == 0, err
    answer: dict[str, object] = json.loads(out)
    return answer


def post_check(service: Service, index: Path, path: str) -> dict[str, object]:
    tokens, _ = Tokens.in_folder(index)
    client = AsgiClient(build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024))
    auth = {"Authorization": f"Bearer {(index / WRITE_TOKEN).read_text().strip()}"}
    answer: dict[str, object] = client.post(
        "/api/check", json={"text": BRIEFING, "path": path, "accept": True}, headers=auth
    ).json()
    return answer


def sources(index: Path) -> set[tuple[str, str]]:
    with sqlite3.connect(index / "kb.sqlite") as db:
        return set(db.execute("SELECT file, json_extract(data, '$.source') FROM records WHERE file LIKE '%.md'"))


def test_the_cli_from_two_folders_stores_one_source(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    index = project / "idx"
    monkeypatch.chdir(project)
    assert len(accept_here(capsys, NAME, index)["accepted"]) == 2  # type: ignore[arg-type]
    after = generation(index)
    monkeypatch.chdir(project / "inbox" / "stephen")
    again = accept_here(capsys, Path(NAME).name, index)
    assert len(again["unchanged"]) == 2 and generation(index) == after  # type: ignore[arg-type]
    assert sources(index) == {(str(project / NAME), str(project / NAME))}


def accepted_then_server_elsewhere(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, int]:
    """The briefing accepted from the team's folder, then the working directory moved to where an
    agent's host started the server: the index and its generation after the accept."""
    index = project / "idx"
    monkeypatch.chdir(project)
    accept_here(capsys, NAME, index)
    after = generation(index)
    (tmp_path / "home").mkdir()
    monkeypatch.chdir(tmp_path / "home")
    return index, after


def test_a_server_started_elsewhere_places_a_relative_path_beside_the_index(
    project: Path, service: Service, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    index, after = accepted_then_server_elsewhere(project, tmp_path, capsys, monkeypatch)
    answer = post_check(service, index, NAME)  # relative to the team's folder, where the agent works
    assert len(answer["unchanged"]) == 2 and generation(index) == after, answer
    assert {i["outcome"] for i in answer["items"]} == {"unchanged"}  # type: ignore[union-attr]
    assert sources(index) == {(str(project / NAME), str(project / NAME))}


def test_a_relative_path_on_no_disk_here_is_the_stored_file_it_ends(
    project: Path, service: Service, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    index, after = accepted_then_server_elsewhere(project, tmp_path, capsys, monkeypatch)
    # The agent works in inbox/: neither here nor beside the index, but the index holds the file.
    answer = post_check(service, index, "stephen/2026-09-21-inference-e1prep.md")
    assert len(answer["unchanged"]) == 2 and generation(index) == after, answer


def test_prune_from_another_folder_keeps_the_same_files_records(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    index = project / "idx"
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "ingest", "inbox", "--index", str(index))
    assert code == 0 and "2 added" in out + err, out + err
    monkeypatch.chdir(project / "inbox")
    code, out, err = run(capsys, "ingest", ".", "--prune", "--index", str(index), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["removed"], report["unchanged"]) == (0, 2)


def make_old(index: Path, project: Path) -> None:
    """Spell the briefing's records as an index written before paths were resolved: relative."""
    relative = NAME
    with sqlite3.connect(index / "kb.sqlite") as db:
        db.execute(
            "UPDATE records SET file = ?, data = json_set(data, '$.source', ?) WHERE file = ?",
            (relative, relative, str(project / NAME)),
        )
    assert sources(index) == {(relative, relative)}


def test_an_old_index_relative_source_is_the_same_file(
    project: Path, service: Service, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    index = project / "idx"
    monkeypatch.chdir(project)
    accept_here(capsys, NAME, index)
    make_old(index, project)
    after = generation(index)
    monkeypatch.chdir(project / "inbox")  # another folder than the day's
    assert len(accept_here(capsys, "stephen/2026-09-21-inference-e1prep.md", index)["unchanged"]) == 2  # type: ignore[arg-type]
    assert len(post_check(service, index, NAME)["unchanged"]) == 2  # type: ignore[arg-type]
    monkeypatch.chdir(project)  # where the relative spelling names the file: not another file's ids
    code, out, err = run(capsys, "ingest", NAME, "--index", str(index))
    assert code == 0 and "0 added, 0 updated, 2 unchanged" in out + err, out + err
    assert generation(index) == after
