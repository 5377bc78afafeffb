"""A write the disk refuses: a full disk, or a file-size limit (``ulimit -f``).

SQLite says a file-size limit (EFBIG), or a disk that fills while the journal is
written, as a plain "disk I/O error": the message said that and "run 'kbsearch
doctor'", which finds nothing wrong, and not what to do.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from serve_support import ROOT, TESTS

from kbsearch.cli import main
from kbsearch.kb import KnowledgeBase


def rows(path: Path, count: int, words: int) -> Path:
    """``count`` rows of ``words`` words each, their ids the file's name and a number."""
    with path.open("w", encoding="utf-8") as out:
        for n in range(count):
            text = f"row {n} " + f"filler{n} " * words
            row = {"id": f"{path.stem}-{n}", "kind": "increment", "instance": "x", "date": "2026-09-01"}
            out.write(json.dumps({**row, "title": f"row {n}", "text": text}) + "\n")
    return path


def test_a_file_size_limit_is_named_with_what_to_do(fake_models: Path, tmp_path: Path) -> None:
    index = tmp_path / "idx"
    assert main(["ingest", str(rows(tmp_path / "small.jsonl", 3, 5)), "--index", str(index)]) == 0
    largest = max(p.stat().st_size for p in index.iterdir())
    limit = largest + 64 * 1024

    # The limit is set by the child itself, not by a preexec_fn: after another test loaded grpc
    # (pymilvus) into this process, its fork handlers aborted the forked child before exec.
    limited = (
        "import resource, runpy, sys; "
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, resource.getrlimit(resource.RLIMIT_FSIZE)[1])); "
        "sys.argv = ['kbsearch', *sys.argv[1:]]; runpy.run_module('kbsearch', run_name='__main__')"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
    big = rows(tmp_path / "big.jsonl", 1500, 60)
    argv = [sys.executable, "-c", limited, "ingest", str(big), "--index", str(index)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 2, done.stderr
    said = done.stderr.strip()
    assert len(said.splitlines()) == 1, said
    assert "the disk is full or a file-size limit was reached; nothing was written" in said
    assert "free some space" in said and "run the command again" in said
    assert "kbsearch doctor" not in said
    with KnowledgeBase.open(str(index)) as kb:
        assert kb.stats().records == 3  # nothing of the refused ingest stands
