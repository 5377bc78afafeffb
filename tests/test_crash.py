"""SIGKILL during a real ingest never costs more than the unfinished run.

Random moments: 20 seeded trials here (``KBSEARCH_CRASH_TRIALS`` changes the
number; ``python bench/crash_trials.py --trials 200`` runs the same code and
prints where the kills landed). Chosen moments: the process kills itself at
a named point of the write, so each side of the commit is tested on every
run, whatever the machine's timing.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest
from crash_harness import (
    Setup,
    check_opens_whole,
    copy_start,
    fake_model_env,
    fingerprint,
    ingest_in_process,
    prepare,
    run_trial,
    search_results,
)

from kbsearch.kb.doctor import examine

TRIALS = int(os.environ.get("KBSEARCH_CRASH_TRIALS", "20"))


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    workdir = tmp_path_factory.mktemp("crash")
    with fake_model_env(workdir) as env:
        yield prepare(workdir, env)


@pytest.fixture(autouse=True)
def _fake_model(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process runs find the fake model through the environment, which
    conftest resets before every test."""
    monkeypatch.setenv("KBSEARCH_MODELS", setup.env["KBSEARCH_MODELS"])


def test_sigkill_at_random_moments_during_ingest(setup: Setup) -> None:
    rng = random.Random(20260922)
    for number in range(TRIALS):
        run_trial(setup, rng, number)  # asserts everything the module docstring of crash_harness lists


# The process kills itself (SIGKILL, no cleanup) on the n-th call of a function.
KILLER = """
import os, signal, sys
import kbsearch.store.vector_cache, kbsearch.store.writer
where, nth = sys.argv[1], int(sys.argv[2])
owner, name = {"upsert": (kbsearch.store.writer, "_write_arxiv"),
               "cache": (kbsearch.store.vector_cache, "write_cache"),
               "rename": (kbsearch.store.vector_cache, "write_atomic")}[where]
original, calls = getattr(owner, name), [0]
def dying(*args, **kwargs):
    calls[0] += 1
    if calls[0] == nth:
        os.kill(os.getpid(), signal.SIGKILL)
    return original(*args, **kwargs)
setattr(owner, name, dying)
from kbsearch.cli import main
sys.exit(main(sys.argv[3:]))
"""


@pytest.mark.parametrize(
    ("where", "nth", "expected"),
    [
        ("upsert", 100, "start"),  # inside the transaction, after 99 records were written
        ("cache", 1, "finished"),  # committed; the cache files not yet touched
        ("rename", 2, "finished"),  # vectors.faiss replaced, manifest.json still the old one
    ],
)
def test_sigkill_at_chosen_points_of_the_write(setup: Setup, where: str, nth: int, expected: str) -> None:
    index = setup.workdir / f"killed-{where}"
    copy_start(setup.starts["older"], index)
    proc = subprocess.run(
        [sys.executable, "-c", KILLER, where, str(nth), "ingest", str(setup.corpus), "--index", str(index)],
        env=setup.env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    cache = check_opens_whole(index)
    state = fingerprint(index)
    assert state == (setup.start_prints["older"] if expected == "start" else setup.reference)
    if expected == "finished":
        assert cache.startswith("cache rebuilt")  # the stale cache was noticed, not trusted
    assert examine(index).healthy == (expected == "start")  # a stale cache is reported
    code, err = ingest_in_process(setup.corpus, index)
    assert code == 0, err
    assert fingerprint(index) == setup.reference
    assert examine(index).healthy
    assert search_results(index) == setup.reference_results
