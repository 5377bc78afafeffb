"""doctor on an index whose files are empty or missing (issue 13, item 5):
each is a problem with its fix named, never "healthy", and doctor itself
creates and changes nothing."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from support.cli import run

from kbsearch.store import DB_NAME, MANIFEST_NAME, VECTORS_NAME

ROWS = [{"id": f"r{i}", "title": t, "text": f"note {i}: {t}"} for i, t in enumerate(["KV cache 压缩", "TGI 维护模式"])]
REBUILD = "delete the index folder and ingest the files again"


def files(folder: Path) -> dict[str, tuple[int, str]]:
    """Every file of the folder: its size and hash."""
    return {p.name: (p.stat().st_size, hashlib.sha256(p.read_bytes()).hexdigest()) for p in folder.iterdir()}


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), encoding="utf-8")
    folder = tmp_path / "idx"
    assert run(capsys, "ingest", str(source), "--index", str(folder))[0] == 0
    return folder


def doctor(capsys: pytest.CaptureFixture[str], folder: Path) -> tuple[int, list[dict]]:
    before = files(folder)
    code, out, _ = run(capsys, "doctor", "--index", str(folder), "--json")
    assert files(folder) == before  # nothing created, nothing changed
    report = json.loads(out)
    assert report["healthy"] == (code == 0)
    return code, report["findings"]


def problems(findings: list[dict]) -> dict[str, dict]:
    return {f["message"]: f for f in findings if not f["ok"]}


def test_a_healthy_index_is_left_byte_for_byte(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, findings = doctor(capsys, index)
    assert code == 0 and all(f["ok"] for f in findings)


def test_every_file_truncated_to_zero_bytes(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in (DB_NAME, MANIFEST_NAME, VECTORS_NAME):
        (index / name).write_bytes(b"")
    code, findings = doctor(capsys, index)
    found = problems(findings)
    assert code == 2
    assert set(found) == {
        f"{DB_NAME} is empty (0 bytes)",
        f"{MANIFEST_NAME} is empty (0 bytes)",
        f"{VECTORS_NAME} is empty (0 bytes)",
    }
    assert all(REBUILD in f["fix"] for f in found.values())
    assert (index / DB_NAME).stat().st_size == 0  # no empty database was made of it


def test_an_empty_database_beside_a_whole_cache(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (index / DB_NAME).write_bytes(b"")
    code, findings = doctor(capsys, index)
    assert code == 2 and list(problems(findings)) == [f"{DB_NAME} is empty (0 bytes)"]


def test_a_missing_database_beside_the_cache(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (index / DB_NAME).unlink()
    code, findings = doctor(capsys, index)
    found = problems(findings)
    assert code == 2 and any(DB_NAME in m and "missing" in m for m in found)
    assert not (index / DB_NAME).exists()


@pytest.mark.parametrize("name", [MANIFEST_NAME, VECTORS_NAME])
@pytest.mark.parametrize("damage", ["empty", "missing"])
def test_an_empty_or_missing_cache_file(
    index: Path, capsys: pytest.CaptureFixture[str], name: str, damage: str
) -> None:
    if damage == "empty":
        (index / name).write_bytes(b"")
    else:
        (index / name).unlink()
    code, findings = doctor(capsys, index)
    found = problems(findings)
    assert code == 2 and found
    assert all("kbsearch reindex" in f["fix"] for f in found.values())


def test_an_older_schema_is_reported_not_upgraded(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = sqlite3.connect(index / DB_NAME)
    db.execute("PRAGMA user_version = 1")
    db.close()
    code, findings = doctor(capsys, index)
    (problem,) = problems(findings).values()
    assert code == 2 and "schema upgrade" in problem["message"] and "kbsearch stats" in problem["fix"]
    db = sqlite3.connect(index / DB_NAME)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    db.close()


def test_records_whose_source_file_is_gone_are_named_not_unhealthy(
    index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "in.jsonl").unlink()
    code, findings = doctor(capsys, index)
    gone = next(f for f in findings if f["check"] == "source files")
    assert code == 0 and gone["ok"]
    assert gone["message"] == f"records come from a file no longer there: {tmp_path / 'in.jsonl'}"
    assert "--prune" in gone["fix"]


def test_a_malformed_database_is_named_and_no_wal_files_are_left(
    index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Probe 24: doctor (and stats) on a damaged kb.sqlite left an empty -wal and a -shm behind."""
    data = bytearray((index / DB_NAME).read_bytes())
    data[100:4000] = b"\xff" * 3900  # the first page's b-tree: "database disk image is malformed"
    (index / DB_NAME).write_bytes(bytes(data))
    code, findings = doctor(capsys, index)  # which compares every file before and after
    assert code == 2 and "unreadable" in " ".join(problems(findings)), findings
    assert run(capsys, "stats", "--index", str(index))[0] == 2
    assert not [p.name for p in index.iterdir() if p.name.endswith(("-wal", "-shm"))]


def test_stats_names_an_unreadable_manifest_as_doctor_does(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Probe 24: an empty manifest.json was "no cache yet" in stats, "manifest is unreadable" in doctor."""
    (index / MANIFEST_NAME).write_bytes(b"")
    code, out, _ = run(capsys, "stats", "--index", str(index))
    assert code == 0 and "manifest.json unreadable: 'kbsearch reindex' rewrites it" in out, out
    (index / MANIFEST_NAME).unlink()
    assert "no cache yet" in run(capsys, "stats", "--index", str(index))[1]
