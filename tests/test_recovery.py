"""Recovery: doctor names each kind of damage and its fix, and reindex repairs it.

The damage is done to a real index built through the CLI: a corrupt vector
file, a truncated manifest, a deleted vector file, a database that is not a
database, and a cache write that fails after the commit.
"""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest
from support.cli import ingest_rows, run

from kbsearch.store import DB_NAME, MANIFEST_NAME, VECTORS_NAME, vector_cache

ROWS = [
    {"id": f"r{i}", "title": title, "text": f"note {i}: {title}"}
    for i, title in enumerate(
        [
            "frequency-domain KV cache compression",
            "speculative decoding with suffix trees",
            "zero-copy KV offloading to host memory",
            "SGLang 前缀缓存",
            "TGI 进入维护模式",
        ]
    )
]


def search_ids(capsys: pytest.CaptureFixture[str], index: Path) -> list[tuple[str, float]]:
    code, out, err = run(capsys, "search", "KV cache offloading", "--index", str(index), "--json")
    assert code == 0, err
    return [(r["id"], r["score"]) for r in json.loads(out)["results"]]


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    folder = ingest_rows(capsys, tmp_path, ROWS, name="in.jsonl")
    assert run(capsys, "doctor", "--index", str(folder))[0] == 0
    return folder


def corrupt(index: Path) -> None:
    data = bytearray((index / VECTORS_NAME).read_bytes())
    data[200:260] = b"\x00" * 60
    (index / VECTORS_NAME).write_bytes(bytes(data))


def truncate_manifest(index: Path) -> None:
    data = (index / MANIFEST_NAME).read_bytes()
    (index / MANIFEST_NAME).write_bytes(data[: len(data) // 3])


def delete(index: Path) -> None:
    (index / VECTORS_NAME).unlink()


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (corrupt, "vector file does not match its manifest (corrupt or half written)"),
        (truncate_manifest, "manifest is unreadable"),
        (delete, "vector file is missing"),
    ],
)
def test_doctor_names_cache_damage_and_reindex_repairs_it(
    index: Path, capsys: pytest.CaptureFixture[str], damage: object, problem: str
) -> None:
    before = search_ids(capsys, index)
    damage(index)  # type: ignore[operator]
    code, out, _ = run(capsys, "doctor", "--index", str(index))
    assert code == 2
    assert f"PROBLEM  vector cache: {problem}" in out and "fix: run 'kbsearch reindex'" in out
    # Searching still works, from vectors rebuilt out of SQLite, and says so.
    code, out, err = run(capsys, "search", "KV cache offloading", "--index", str(index), "--json")
    assert code == 0 and [(r["id"], r["score"]) for r in json.loads(out)["results"]] == before
    assert err.count("\n") == 1 and "rebuilt the vector cache" in err and problem in err
    code, out, err = run(capsys, "reindex", "--index", str(index), "--json")
    assert code == 0, err
    assert json.loads(out)["embedded"] == 0  # the vectors were in SQLite all along
    assert run(capsys, "doctor", "--index", str(index))[0] == 0
    code, out, err = run(capsys, "search", "KV cache offloading", "--index", str(index), "--json")
    assert err == "" and [(r["id"], r["score"]) for r in json.loads(out)["results"]] == before


def test_a_database_that_is_not_one_is_named_with_its_fix(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (index / DB_NAME).write_bytes(b"this is not an SQLite database" * 100)
    code, out, _ = run(capsys, "doctor", "--index", str(index), "--json")
    assert code == 2
    finding = json.loads(out)["findings"][0]
    assert finding["check"] == "database" and not finding["ok"] and "ingest the files again" in finding["fix"]
    code, _, err = run(capsys, "search", "KV", "--index", str(index))
    assert code == 2 and err.count("\n") == 1 and "unreadable" in err


def test_a_failed_cache_write_loses_no_record(
    index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def disk_full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps({"id": "new", "title": "PD disaggregation 分离式推理"}) + "\n", encoding="utf-8")
    with monkeypatch.context() as patch:
        patch.setattr(vector_cache, "write_cache", disk_full)
        code, _, err = run(capsys, "ingest", str(more), "--index", str(index))
    assert code == 0 and "the records are saved, but the vector cache could not be written" in err
    code, out, _ = run(capsys, "doctor", "--index", str(index))
    assert code == 2 and "generation" in out  # the cache is one write behind, and doctor says so
    code, out, _ = run(capsys, "search", "分离式推理", "--index", str(index), "--json")
    assert json.loads(out)["results"][0]["id"] == "new"
    # The next writer that has nothing to write still puts the cache right.
    assert run(capsys, "ingest", str(more), "--index", str(index))[0] == 0
    assert run(capsys, "doctor", "--index", str(index))[0] == 0


@pytest.mark.parametrize("command", ["doctor", "reindex"])
def test_a_missing_index_is_named_and_not_created(
    fake_models: Path, tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, command, "--index", str(tmp_path / "none"))
    assert code == 2 and "kbsearch ingest" in err
    assert not (tmp_path / "none").exists()
