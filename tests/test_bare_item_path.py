"""A bare item (a title line and key points, no briefing header: one finding) named by a path
that carries its writer and day, as a briefing file's does (``inbox/spark/2026-10-11-note.md``),
is a one-item briefing of that writer and day: ``check - --path``, ``check FILE``, accept and
ingest alike, and the server's ``path``. It was refused ("no writer or day can be read"), and
the same file in an inbox folder was skipped by ingest. A path that names neither is still
refused, with what to send instead. With the fake encoder."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from serve_support import AsgiClient, service_for
from support.cli import ingest_rows, run

from kbsearch.serve.http import build_app
from kbsearch.serve.tokens import WRITE_TOKEN, Tokens

KNOWN = [{"id": "k1", "title": "量子退火 调度 电网", "text": "电网 负荷 预测", "date": "2026-09-01"}]
NOTE = "Zorblax adds spot failover\n- Zorblax sandboxes migrate within 40 s when a spot instance is reclaimed\n"
NAMED = "inbox/spark/2026-10-11-note.md"
ID = "spark/2026-10-11-note#1"


@pytest.fixture
def index(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> str:
    monkeypatch.chdir(tmp_path)  # the relative paths below resolve here
    return str(ingest_rows(capsys, tmp_path, KNOWN))


def piped(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(NOTE))
    return run(capsys, "check", "-", *argv)


def test_a_bare_item_named_by_its_path_has_its_writer_and_day(
    index: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = piped(capsys, monkeypatch, "--path", NAMED, "--index", index, "--json")
    assert code == 0 and err == ""
    (item,) = json.loads(out)["items"]
    assert (item["id"], item["instance"], item["date"], item["verdict"]) == (ID, "spark", "2026-10-11", "NEW")
    assert item["title"] == "Zorblax adds spot failover"


def test_accepted_then_checked_again_it_is_its_own_record_as_a_named_item_is(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = piped(capsys, monkeypatch, "--path", NAMED, "--accept", "--index", index)
    assert code == 0 and "accepted 1" in out
    (item,) = json.loads(piped(capsys, monkeypatch, "--path", NAMED, "--index", index, "--json")[1])["items"]
    assert item["id"] == ID and item["resubmitted"]  # this very text under this id: not compared with itself
    # The same text without a path is another submission, and a repeat of the accepted one.
    (other,) = json.loads(piped(capsys, monkeypatch, "--index", index, "--json")[1])["items"]
    assert other["id"].startswith("stdin#") and other["verdict"] == "DUPLICATE"
    assert other["first_seen"]["id"] == ID
    # The file published after the gate is read the same: check FILE and its ingest find it stored.
    (tmp_path / NAMED).parent.mkdir(parents=True)
    (tmp_path / NAMED).write_text(NOTE, encoding="utf-8")
    (again,) = json.loads(run(capsys, "check", NAMED, "--index", index, "--json")[1])["items"]
    assert again["id"] == ID and again["resubmitted"]
    code, out, _ = run(capsys, "ingest", "inbox", "--index", index)
    assert code == 0 and "0 added, 0 updated, 1 unchanged" in out


def test_ingest_of_an_inbox_folder_reads_a_bare_item_in_it(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / NAMED).parent.mkdir(parents=True)
    (tmp_path / NAMED).write_text(NOTE, encoding="utf-8")
    code, out, err = run(capsys, "ingest", "inbox", "--index", index)
    assert code == 0 and "1 added" in out and "unrecognised" not in err
    shown = json.loads(run(capsys, "show", ID, "--index", index, "--json")[1])
    assert (shown["instance"], shown["date"], shown["title"]) == ("spark", "2026-10-11", "Zorblax adds spot failover")


@pytest.mark.parametrize("path", ["notes/note.md", "inbox/spark/note.md", "notes/2026-10-11-note.md"])
def test_a_path_naming_no_writer_and_day_is_refused_with_what_to_send(
    index: str, path: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = piped(capsys, monkeypatch, "--path", path, "--index", index)
    assert code == 2 and "does not name its writer and day" in err
    assert "inbox/WRITER/YYYY-MM-DD-" in err and "leave --path out" in err and "JSONL line" in err


def test_the_json_api_reads_a_bare_item_by_its_path(index: str, tmp_path: Path) -> None:
    service = service_for(Path(index))
    try:
        tokens, _ = Tokens.in_folder(service.root)
        client = AsgiClient(build_app(service, tokens, host="127.0.0.1", max_body=64 * 1024))
        auth = {"Authorization": f"Bearer {(service.root / WRITE_TOKEN).read_text().strip()}"}
        body = {"text": NOTE, "path": NAMED, "accept": True}
        answer = client.post("/api/check", json=body, headers=auth).json()
        assert answer["accepted"] == [ID] and answer["warnings"] == []
        again = client.post("/api/check", json={"text": NOTE, "path": NAMED}, headers=auth).json()
        assert again["items"][0]["id"] == ID and again["items"][0]["resubmitted"]
    finally:
        service.close()


@pytest.mark.parametrize(
    "text",
    [
        "Increment 1: Zorblax adds spot failover\n- 40 s migration\nIncrement 2: Quoll 2.0 ships\n- FP8 by default\n",
        "Zorblax adds spot failover\n" + "".join(f"- point {n}\n" for n in range(45)),
    ],
)
def test_a_dated_inbox_file_of_several_findings_is_no_bare_item(text: str) -> None:
    """A briefing in a layout the parser does not know, named as a bare item is, stays refused:
    read as one bare item it would be one record of many findings."""
    from kbsearch.errors import KbError
    from kbsearch.parse import parse_text

    with pytest.raises(KbError, match="unrecognised format"):
        parse_text(text, Path(NAMED))
    assert parse_text(NOTE, Path(NAMED)).records[0].id == ID
