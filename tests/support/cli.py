"""Running the CLI in-process, as a user would, and reading what it printed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kbsearch.cli import main
from support.files import write_jsonl


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``kbsearch ARGV`` (alone: what a fixture printed before is dropped)."""
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str, codes: tuple[int, ...] = (0,)) -> dict[str, Any]:
    """``kbsearch ARGV --json``, parsed; the exit code must be one of ``codes``."""
    code, out, err = run(capsys, *argv, "--json")
    assert code in codes, err
    document: dict[str, Any] = json.loads(out)
    return document


def ingest_rows(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rows: list[dict[str, Any]], name: str = "known.jsonl"
) -> Path:
    """A fresh index at ``tmp_path/idx`` holding ``rows`` (written as JSONL)."""
    index = tmp_path / "idx"
    code, _, err = run(capsys, "ingest", str(write_jsonl(tmp_path / name, rows)), "--index", str(index))
    assert code == 0, err
    return index


def index_files(index: Path) -> dict[str, bytes]:
    """Every file of an index folder, by name: for byte-for-byte comparisons."""
    return {p.name: p.read_bytes() for p in index.iterdir() if p.is_file()}


def check_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    """``kbsearch ARGV --json`` for check and audit: the exit code (1 means a
    DUPLICATE, not an error) and the parsed document."""
    code, out, err = run(capsys, *argv, "--json")
    assert code in (0, 1), err
    document: dict[str, Any] = json.loads(out)
    return code, document
