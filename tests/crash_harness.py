"""Kill ``kbsearch ingest`` with SIGKILL at random moments and check what it leaves.

Shared by ``tests/test_crash.py`` (20 trials in CI) and ``bench/crash_trials.py``
(any number, 200 for the release note). One trial:

1. copy a starting index (none, or one built from an older version of the
   corpus), start ``python -m kbsearch ingest CORPUS`` as a subprocess;
2. SIGKILL it at a moment picked by a seeded RNG, in one of three ways:
   ``timer`` (a random delay over the whole run, start-up included), ``wal``
   (once SQLite's write-ahead log has grown past a random size, i.e. inside
   the commit) or ``cache`` (as soon as a cache temp file appears, i.e. between
   the commit and the atomic renames);
3. check that the index opens, that the vector cache (loaded or rebuilt) holds
   exactly the passages' ids, that no record is half written, and that the
   database is in the starting state or the finished one, nothing between;
4. ingest again, and check that the result equals a clean ingest: same
   records, passages, vectors and id tables, a healthy ``doctor``, and the
   same search results.

The corpus is generated (a few hundred records over briefings, cards, JSONL
and a living doc) and the model is the fake encoder from ``fake_encoder.py``,
imported by the subprocess through PYTHONPATH.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kbsearch.cli import main
from kbsearch.kb import KnowledgeBase
from kbsearch.kb.doctor import examine
from kbsearch.records import MAX_PASSAGES
from kbsearch.store import DB_NAME, Store
from kbsearch.store.files import UnfinishedIndex
from kbsearch.store.vector_cache import leftover_temp_files

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
MODES = ("timer", "wal", "cache")
QUERIES = ["KV cache 压缩", "speculative decoding draft model", "2609.10007"]
_WORDS_EN = [
    "KV",
    "cache",
    "compression",
    "eviction",
    "paged",
    "attention",
    "speculative",
    "decoding",
    "draft",
    "model",
    "prefix",
    "caching",
    "scheduler",
    "throughput",
    "latency",
    "quantization",
    "offloading",
    "host",
    "memory",
    "batch",
    "serving",
    "engine",
    "kernel",
    "sparse",
    "long",
    "context",
    "router",
    "expert",
]
_WORDS_ZH = [
    "推理",
    "压缩",
    "显存",
    "吞吐",
    "调度",
    "量化",
    "缓存",
    "分离式",
    "长上下文",
    "投机解码",
    "前缀",
    "内核",
    "批处理",
    "路由",
    "专家",
    "延迟",
]


# -- corpus ----------------------------------------------------------------------------


def _sentence(rng: random.Random, words: int = 10) -> str:
    picks = [rng.choice(_WORDS_EN) if rng.random() < 0.6 else rng.choice(_WORDS_ZH) for _ in range(words)]
    return " ".join(picks)


def briefing_text(rng: random.Random, day: int, instance: str, increments: int, edit: str) -> str:
    lines = [f"inference · E1 预消化简报(2026-09-{day:02d})", f"执行： {instance.title()} · inference 主题", "一、增量"]
    for n in range(1, increments + 1):
        ident = f"2609.{10000 + day * 100 + n}"
        lines += [
            f"增量 {n}：{_sentence(rng, 6)} {edit}（arXiv {ident}，⭐⭐⭐）",
            f"来源： arXiv:{ident}v1",
            f"要点： - {_sentence(rng)} - {_sentence(rng)} - {_sentence(rng, 6)}",
            f"可信度： {rng.choice(['高', '中', '低'])}",
        ]
    lines += ["三、可引用 arXiv 号列表", "| arXiv | 标题 | 状态 |", "|---|---|---|"]
    lines += [f"| 2609.{10000 + day * 100 + n} | t{n} | 本次新增 |" for n in range(1, increments + 1)]
    return "\n".join(lines) + "\n"


def _card(rng: random.Random, number: int, edit: str) -> str:
    return (
        f'---\ncard: {number}\narxiv_id: "2608.{20000 + number}"\ntitle: "{_sentence(rng, 7)}"\n'
        f'date: 2026-09-{1 + number % 28:02d}\ntldr: "{_sentence(rng)} {edit}"\n---\n'
        f"{_sentence(rng, 30)}\n"
    )


def jsonl_rows(rng: random.Random, prefix: str, count: int, edit: str) -> str:
    rows = [
        {
            "id": f"{prefix}-{i}",
            "title": _sentence(rng, 6),
            "text": f"{_sentence(rng, 25)} {edit}",
            "instance": rng.choice(["tom", "jay", "spark"]),
            "date": f"2026-09-{1 + i % 28:02d}",
        }
        for i in range(count)
    ]
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def _doc(rng: random.Random, sections: int) -> str:
    parts = ["# inference 活文档"]
    for i in range(1, sections + 1):
        parts += [f"## §{i} {_sentence(rng, 3)}", _sentence(rng, 40)]
    return "\n\n".join(parts) + "\n"


def write_corpus(folder: Path, *, old: bool = False, seed: int = 7) -> None:
    """The corpus (about 300 records), or with ``old`` an earlier version of it:
    fewer files, and edited text in those it has, under the same ids."""
    rng = random.Random(seed)
    edit = "（旧版）" if old else ""
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "briefings").mkdir(parents=True)
    (folder / "cards").mkdir()
    for i in range(4 if old else 8):
        instance = ["tom", "jay", "spark", "stephen"][i % 4]
        (folder / "briefings" / f"2026-09-{10 + i:02d}-{instance}-inference-e1prep.md").write_text(
            briefing_text(rng, 10 + i, instance, 8, edit), encoding="utf-8"
        )
    for number in range(1, 11 if old else 31):
        (folder / "cards" / f"card-{number:04d}.md").write_text(_card(rng, number, edit), encoding="utf-8")
    cards = [
        {"card": 100 + n, "arxiv_id": f"2607.{30000 + n}", "title": _sentence(rng, 6), "tldr": _sentence(rng)}
        for n in range(30)
    ]
    (folder / "cards" / "cards.json").write_text(json.dumps(cards, ensure_ascii=False), encoding="utf-8")
    for name in ["feed-a"] if old else ["feed-a", "feed-b"]:
        rows = jsonl_rows(rng, name, 40 if old else 60, edit)
        (folder / f"{name}.jsonl").write_text(rows, encoding="utf-8")
    if not old:
        (folder / "inference.md").write_text(_doc(rng, 40), encoding="utf-8")


# -- state -----------------------------------------------------------------------------


def fingerprint(index: Path) -> dict[str, object]:
    """Everything an ingest decides, without rowids or timestamps."""
    empty: dict[str, object] = {"meta": [], "records": [], "passages": [], "vectors": [], "arxiv": [], "mentions": []}
    if not (index / DB_NAME).exists():
        return empty
    db = sqlite3.connect(f"{(index / DB_NAME).as_uri()}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "records" not in tables:
            return empty
        return {
            "meta": sorted(db.execute("SELECT key, value FROM meta WHERE key IN ('model', 'dim')")),
            "records": sorted(db.execute("SELECT id, kind, content_hash, data, file FROM records")),
            "passages": sorted(
                db.execute("SELECT r.id, p.idx, p.content_hash FROM passages p JOIN records r USING (rowid)")
            ),
            "vectors": sorted(
                {
                    (h, hashlib.sha256(v).hexdigest())
                    for h, v in db.execute(
                        "SELECT v.content_hash, v.vector FROM vectors v JOIN passages p USING (content_hash) "
                        "JOIN meta m ON m.key = 'model' AND m.value = v.model"
                    )
                }
            ),
            "arxiv": sorted(
                db.execute("SELECT r.id, a.arxiv_id, a.role FROM record_arxiv a JOIN records r USING (rowid)")
            ),
            "mentions": sorted(db.execute("SELECT source, position, data FROM id_mentions")),
        }
    finally:
        db.close()


def search_results(index: Path) -> list[list[tuple[str, float]]]:
    kb = KnowledgeBase.open(index)
    try:
        return [[(h.id, h.score) for h in kb.search(q, 10).results] for q in QUERIES]
    finally:
        kb.close()


def check_opens_whole(index: Path) -> str:
    """Raise AssertionError unless the index opens and agrees with itself; return the cache state."""
    if not (index / DB_NAME).exists():
        return "no index"
    try:
        store = Store.open(index)
    except UnfinishedIndex:
        # Killed between creating the database and its first commit: named, never read as empty.
        assert not examine(index).healthy
        return "unfinished first ingest"
    try:
        vectors = sorted(store.vector_index.ids().tolist())
        rows = store.db.execute(f"SELECT rowid * {MAX_PASSAGES} + idx FROM passages")
        passages = sorted(r[0] for r in rows)
        assert vectors == passages, "vector cache and passages disagree after reopening"
        rebuilt, empty = store.cache.rebuilt, store.model is None
    finally:
        store.close()
    problems = [f for f in examine(index).findings if not f.ok and f.check != "vector cache"]
    assert not problems, f"doctor: {problems}"
    if empty:
        return "empty index"
    return f"cache rebuilt ({rebuilt})" if rebuilt else "cache current"


# -- running ---------------------------------------------------------------------------


@contextlib.contextmanager
def fake_model_env(workdir: Path) -> Iterator[dict[str, str]]:
    """os.environ for the fake model, set for in-process runs and returned for subprocesses."""
    models = workdir / "models.txt"
    models.write_text("fake python:fake_encoder:make dim=64\n", encoding="utf-8")
    saved = dict(os.environ)
    os.environ["KBSEARCH_MODELS"] = str(models)
    os.environ.pop("KBSEARCH_MODEL", None)
    os.environ.pop("KBSEARCH_INDEX", None)
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(TESTS), env.get("PYTHONPATH", "")])
    try:
        yield env
    finally:
        os.environ.clear()
        os.environ.update(saved)


def ingest_in_process(corpus: Path, index: Path) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["ingest", str(corpus), "--index", str(index)])
    return code, err.getvalue()


def start_ingest(corpus: Path, index: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "kbsearch", "ingest", str(corpus), "--index", str(index)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _wal_size(index: Path) -> int:
    try:
        return (index / f"{DB_NAME}-wal").stat().st_size
    except OSError:
        return 0


def watch(proc: subprocess.Popen[bytes], index: Path, mode: str, rng: random.Random, calibration: Calibration) -> bool:
    """Kill ``proc`` at the moment ``mode`` picks; False when it finished first."""
    started = time.perf_counter()
    delay = rng.uniform(0, calibration.seconds * 1.1)
    wal_threshold = rng.randint(1, max(1, calibration.wal_bytes))
    while proc.poll() is None:
        if mode == "timer":
            hit = time.perf_counter() - started >= delay
        elif mode == "wal":
            hit = _wal_size(index) >= wal_threshold
        else:
            hit = bool(leftover_temp_files(index))
        if hit:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.0002)
    return False


@dataclass
class Calibration:
    """How long an uninterrupted ingest takes from a starting state, and how far its WAL grows."""

    seconds: float
    wal_bytes: int


@dataclass
class Setup:
    workdir: Path
    corpus: Path
    starts: dict[str, Path]
    """Starting indexes by name: 'empty' (no index) and 'older'."""
    start_prints: dict[str, dict[str, object]]
    reference: dict[str, object]
    reference_results: list[list[tuple[str, float]]]
    calibration: dict[str, Calibration]
    env: dict[str, str]


def prepare(workdir: Path, env: dict[str, str]) -> Setup:
    """Corpus, starting indexes, the clean reference, and timings; needs fake_model_env active."""
    corpus = workdir / "corpus"
    starts = {"empty": workdir / "start-empty", "older": workdir / "start-older"}
    write_corpus(corpus, old=True)
    code, err = ingest_in_process(corpus, starts["older"])
    assert code == 0, err
    write_corpus(corpus)
    reference_index = workdir / "reference"
    code, err = ingest_in_process(corpus, reference_index)
    assert code == 0, err
    calibration = {
        name: _calibrate(corpus, start, workdir / f"calibrate-{name}", env) for name, start in starts.items()
    }
    return Setup(
        workdir,
        corpus,
        starts,
        {n: fingerprint(p) for n, p in starts.items()},
        fingerprint(reference_index),
        search_results(reference_index),
        calibration,
        env,
    )


def copy_start(start: Path, index: Path) -> None:
    shutil.rmtree(index, ignore_errors=True)
    if start.exists():
        shutil.copytree(start, index)


def _calibrate(corpus: Path, start: Path, index: Path, env: dict[str, str]) -> Calibration:
    copy_start(start, index)
    began = time.perf_counter()
    proc = start_ingest(corpus, index, env)
    wal = 0
    while proc.poll() is None:
        wal = max(wal, _wal_size(index))
        time.sleep(0.0002)
    assert proc.returncode == 0, proc.stderr.read().decode() if proc.stderr else ""
    return Calibration(seconds=time.perf_counter() - began, wal_bytes=wal)


@dataclass
class Outcome:
    mode: str
    start: str
    killed: bool
    landed: str
    """'before commit', 'after commit' or 'finished' (the database state found after the kill)."""
    cache: str
    temp_files: int


@dataclass
class Summary:
    trials: int = 0
    outcomes: list[Outcome] = field(default_factory=list)

    def table(self) -> Counter[tuple[str, str, str]]:
        return Counter((o.mode, o.landed, o.cache.split(" (")[0]) for o in self.outcomes)


def run_trial(setup: Setup, rng: random.Random, number: int) -> Outcome:
    start = rng.choice(sorted(setup.starts))
    mode = rng.choice(MODES)
    index = setup.workdir / "trial"
    copy_start(setup.starts[start], index)
    proc = start_ingest(setup.corpus, index, setup.env)
    killed = watch(proc, index, mode, rng, setup.calibration[start])
    if not killed:
        assert proc.returncode == 0, f"trial {number}: ingest failed on its own"
    temp_files = len(leftover_temp_files(index))
    cache = check_opens_whole(index)
    state = fingerprint(index)
    if state == setup.start_prints[start]:
        landed = "before commit"
    elif state == setup.reference:
        landed = "after commit"
    else:
        raise AssertionError(
            f"trial {number} ({mode}, from {start}): the database is neither the starting state nor the finished one"
        )
    code, err = ingest_in_process(setup.corpus, index)
    assert code == 0, f"trial {number}: the second ingest failed: {err}"
    assert fingerprint(index) == setup.reference, f"trial {number}: second ingest differs from a clean one"
    assert examine(index).healthy, f"trial {number}: doctor finds problems after the second ingest"
    assert search_results(index) == setup.reference_results, f"trial {number}: search results differ"
    return Outcome(mode, start, killed, landed if killed else "finished", cache, temp_files)


def run_trials(workdir: Path, trials: int, seed: int) -> Summary:
    with fake_model_env(workdir) as env:
        setup = prepare(workdir, env)
        rng = random.Random(seed)
        summary = Summary()
        for number in range(trials):
            summary.outcomes.append(run_trial(setup, rng, number))
            summary.trials += 1
        return summary
