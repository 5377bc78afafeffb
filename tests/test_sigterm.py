"""SIGTERM during a command ends it as Ctrl-C does: the unfinished write is rolled
back and one line says so, exit 143 (128 + SIGTERM). It used to end the process
at once with no word, and 130 is Ctrl-C's."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import FAKE_DEDUPE
from serve_support import ROOT, TESTS

from kbsearch.cli import main
from kbsearch.kb import KnowledgeBase


def test_sigterm_during_an_ingest_says_the_index_is_unchanged(fake_models: Path, tmp_path: Path) -> None:
    first = tmp_path / "first.jsonl"
    first.write_text(json.dumps({"id": "a", "title": "TriAttention", "text": "KV cache"}) + "\n", encoding="utf-8")
    index = tmp_path / "idx"
    assert main(["ingest", str(first), "--index", str(index)]) == 0
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        "".join(
            json.dumps({"id": f"r{n}", "title": f"Item {n} KV cache", "text": f"throughput {n}%"}) + "\n"
            for n in range(300)
        ),
        encoding="utf-8",
    )
    slow = tmp_path / "slow-models.txt"
    slow.write_text(f"fake python:fake_encoder:slow dim=64 dedupe={FAKE_DEDUPE}\n", encoding="utf-8")
    started = tmp_path / "encoding"
    env = {
        **os.environ,
        "KBSEARCH_MODELS": str(slow),
        "FAKE_ENCODER_STARTED": str(started),
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)]),
    }
    argv = [sys.executable, "-m", "kbsearch", "ingest", str(rows), "--index", str(index)]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    time.sleep(0.3)  # into the write: 300 texts take the slow model 9 s
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 143 and out == ""
    assert err == "kbsearch: interrupted (SIGTERM); the index is unchanged by the unfinished write\n"
    with KnowledgeBase.open(str(index), "fake") as kb:
        assert kb.stats().records == 1
