"""One writer at a time; readers keep a consistent view while a writer works.

Writers are real ``kbsearch`` subprocesses using the fake model; readers are
KnowledgeBase objects in this process, a long-lived one (as the TUI keeps)
and fresh ones.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from crash_harness import briefing_text, fake_model_env, fingerprint, ingest_in_process, jsonl_rows
from filelock import FileLock

from kbsearch.kb import LOCK_NAME, KnowledgeBase
from kbsearch.kb.doctor import examine

TRIALS = 20
WAITING = "kbsearch: another kbsearch run is writing to this index; waiting for it to finish…"


@dataclass
class Corpora:
    env: dict[str, str]
    a: Path
    b: Path
    small: Path
    big: Path
    """Ingested while readers read: big enough that the writer runs a while."""
    a_ids: frozenset[str]
    b_ids: frozenset[str]
    big_ids: frozenset[str]
    both: dict[str, object]
    """Fingerprint of A and B ingested one after the other."""


def write_corpus(folder: Path, name: str, records: int, seed: int) -> None:
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    (folder / f"{name}.jsonl").write_text(jsonl_rows(rng, name, records, ""), encoding="utf-8")
    for day in (20, 21):
        (folder / f"2026-09-{day}-{name}-inference-e1prep.md").write_text(
            briefing_text(rng, day, name, 6, ""), encoding="utf-8"
        )


def record_ids(index: Path) -> frozenset[str]:
    kb = KnowledgeBase.open(index)
    try:
        return frozenset(r.id for r in kb.listing().records)
    finally:
        kb.close()


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpora]:
    work = tmp_path_factory.mktemp("concurrency")
    with fake_model_env(work) as env:
        write_corpus(work / "a", "alpha", 60, 1)
        write_corpus(work / "b", "beta", 100, 2)
        write_corpus(work / "small", "gamma", 5, 3)
        write_corpus(work / "big", "delta", 300, 4)
        for name in ("a", "b", "big"):
            assert ingest_in_process(work / name, work / f"only-{name}")[0] == 0
        assert ingest_in_process(work / "a", work / "both")[0] == 0
        assert ingest_in_process(work / "b", work / "both")[0] == 0
        yield Corpora(
            env,
            work / "a",
            work / "b",
            work / "small",
            work / "big",
            record_ids(work / "only-a"),
            record_ids(work / "only-b"),
            record_ids(work / "only-big"),
            fingerprint(work / "both"),
        )


@pytest.fixture(autouse=True)
def _fake_model(corpora: Corpora, monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process runs find the fake model through the environment, which
    conftest resets before every test."""
    monkeypatch.setenv("KBSEARCH_MODELS", corpora.env["KBSEARCH_MODELS"])


def kbsearch(env: dict[str, str], *argv: str, timeout: str = "600") -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "kbsearch", *argv],
        env={**env, "KBSEARCH_LOCK_TIMEOUT": timeout},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_ingests_at_once_keep_all_records_of_both(corpora: Corpora, tmp_path: Path) -> None:
    waited = 0
    for trial in range(TRIALS):
        index = tmp_path / f"trial-{trial}"
        first, second = (corpora.a, corpora.b) if trial % 2 else (corpora.b, corpora.a)
        procs = [
            kbsearch(corpora.env, "ingest", str(first), "--index", str(index)),
            kbsearch(corpora.env, "ingest", str(second), "--index", str(index)),
        ]
        for proc in procs:
            _, err = proc.communicate()
            assert proc.returncode == 0, f"trial {trial}: {err}"
            assert err in ("", WAITING + "\n"), f"trial {trial}: {err}"  # a clean wait is the only message
            waited += err != ""
        assert fingerprint(index) == corpora.both, f"trial {trial}"
        assert examine(index).healthy, f"trial {trial}: {examine(index)}"
    print(f"{waited} of {TRIALS} trials had one writer wait for the other")


def test_a_second_writer_waits_with_a_message_and_then_writes(corpora: Corpora, tmp_path: Path) -> None:
    index = tmp_path / "idx"
    assert ingest_in_process(corpora.small, index)[0] == 0
    before = fingerprint(index)
    lock = FileLock(str(index / LOCK_NAME))
    lock.acquire()
    try:
        proc = kbsearch(corpora.env, "ingest", str(corpora.a), "--index", str(index))
        assert proc.stderr is not None
        assert proc.stderr.readline() == WAITING + "\n"
        assert fingerprint(index) == before  # nothing written while it waits
    finally:
        lock.release()
    _, rest = proc.communicate()
    assert proc.returncode == 0 and rest == ""
    assert corpora.a_ids <= record_ids(index)


@pytest.mark.parametrize("argv", [["ingest", "A"], ["ingest", "A", "--prune"], ["reindex"]])
def test_a_writer_gives_up_after_the_timeout_with_one_line(corpora: Corpora, tmp_path: Path, argv: list[str]) -> None:
    index = tmp_path / "idx"
    assert ingest_in_process(corpora.small, index)[0] == 0
    before = {p.name: p.read_bytes() for p in index.iterdir()}
    args = [str(corpora.a) if a == "A" else a for a in argv]
    with FileLock(str(index / LOCK_NAME)):
        proc = kbsearch(corpora.env, *args, "--index", str(index), timeout="0.3")
        _, err = proc.communicate()
    assert proc.returncode == 2
    waiting, error = err.splitlines()
    assert waiting == WAITING
    assert "another kbsearch run has been writing" in error and "KBSEARCH_LOCK_TIMEOUT" in error
    assert {p.name: p.read_bytes() for p in index.iterdir()} == before


def test_readers_see_one_committed_state_while_a_writer_runs(corpora: Corpora, tmp_path: Path) -> None:
    index = tmp_path / "idx"
    assert ingest_in_process(corpora.a, index)[0] == 0
    states = (corpora.a_ids, corpora.a_ids | corpora.big_ids)
    long_lived = KnowledgeBase.open(index)
    seen: list[int] = []
    try:
        writer = kbsearch(corpora.env, "ingest", str(corpora.big), "--index", str(index))
        while True:
            done = writer.poll() is not None
            fresh = KnowledgeBase.open(index)
            try:
                for kb in (long_lived, fresh):
                    listed = frozenset(r.id for r in kb.listing().records)
                    found = frozenset(h.id for h in kb.search("KV cache 压缩", k=10_000).results)
                    assert listed in states and found in states
                    seen.append(states.index(found))
            finally:
                fresh.close()
            if done:
                break
        assert writer.returncode == 0
        assert seen[-1] == 1  # after the writer, both readers see its records
    finally:
        long_lived.close()
    print(f"{len(seen)} reads: {seen.count(0)} before the commit, {seen.count(1)} after")
