"""After an ingest, a background process keeps the newest records' token vectors
on disk (``kbsearch/kb/token_fill.py``), so that a first check near them reads
what it would otherwise compute."""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from filelock import FileLock

import kbsearch.kb.token_fill as token_fill
from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.dedupe.judged_passages import disk_key
from kbsearch.embed.token_disk import DiskTokens
from kbsearch.embed.tokens import RememberedTokens
from kbsearch.ingest import IngestReport, ingest_records
from kbsearch.models import ModelSpec
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store

USE = ModelSpec(name="fake", source="python:fake_encoder:make", dim=64, judge="fakejudge")
NO_JUDGE = ModelSpec(name="fake", source="python:fake_encoder:make", dim=64)


def record(i: int, text: str | None = None, claims: list[str] | None = None) -> Record:
    return Record.model_validate(
        {
            "id": f"tom/r{i}",
            "kind": Kind.increment,
            "title": f"title {i}",
            "text": text or f"KV cache note {i} with 8 H200 GPUs",
            "claims": claims or [],
            "instance": "tom",
            "date": dt.date(2026, 9, 1),
        }
    )


def written(root: Path, records: list[Record]) -> None:
    encoder = FakeEncoder()
    store = Store.open(root, create=True)
    try:
        for one in records:  # one write each: the rowids follow the order written
            ingest_records(store, ChangeSet(upserts=[one]), model="fake", load_encoder=lambda: encoder)
    finally:
        store.close()


def test_what_is_filled_is_every_passage_and_a_short_whole_text_that_is_not_one() -> None:
    short = record(1, claims=["FP4 KV cache kernels", "1.8x decode throughput"])
    long = record(2, text=" ".join(["word"] * 50), claims=["one claim"])
    texts = token_fill.plan_fill([short, long], FakeTokenEncoder().count_tokens, aligned_max_tokens=20).texts
    for each in (short, long):
        assert set(each.passages()) <= set(texts)
    wholes = {short.embed_text(), long.embed_text()} - set(short.passages()) - set(long.passages())
    for whole in wholes:  # only a whole text that is no passage is judged by its length
        assert (whole in texts) == (len(whole.split()) <= 20)


def test_a_fill_takes_the_newest_records_while_their_token_rows_fit() -> None:
    records = [record(i, text=f"note {i} " + "word " * 8, claims=[f"claim {i}"]) for i in (3, 2, 1)]
    count = FakeTokenEncoder().count_tokens
    rows_each = sum(count(token_fill.plan_fill([records[0]], count, aligned_max_tokens=100).texts))
    plan = token_fill.plan_fill(records, count, aligned_max_tokens=100, max_rows=2 * rows_each)
    assert [r.id for r in plan.records] == ["tom/r3", "tom/r2"]
    assert set(plan.texts) == {t for r in records[:2] for t in r.passages()} | {r.embed_text() for r in records[:2]}
    unbounded = token_fill.plan_fill(records, count, aligned_max_tokens=100)
    assert [r.id for r in unbounded.records] == ["tom/r3", "tom/r2", "tom/r1"]


def test_the_newest_records_are_those_written_last(tmp_path: Path) -> None:
    written(tmp_path / "idx", [record(i) for i in range(5)])
    store = Store.open(tmp_path / "idx")
    try:
        assert [r.id for r in token_fill.newest_records(store, 2)] == ["tom/r4", "tom/r3"]
    finally:
        store.close()


@dataclass
class Disks:
    tokens: DiskTokens
    passages: DiskTokens
    token_encoder: FakeTokenEncoder


def fill_setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reads_tokens: bool) -> Disks:
    """A fill with fake models: USE's judge is a FakeEncoder, its token encoder a
    FakeTokenEncoder, each kept on a disk tier of its own under ``tmp_path``."""
    disks = Disks(
        DiskTokens(tmp_path / "tokens.sqlite"),
        DiskTokens(tmp_path / "passages.sqlite", dtype=np.float32),
        FakeTokenEncoder(),
    )
    monkeypatch.setenv("KBSEARCH_TOKEN_FILL", "2")
    monkeypatch.setattr(token_fill, "resolve_model", lambda name: USE)
    monkeypatch.setattr(token_fill, "resolve_judge", lambda spec: USE.model_copy(update={"name": "fakejudge"}))
    config = SimpleNamespace(reads_tokens=lambda: reads_tokens, aligned_max_tokens=123)
    monkeypatch.setattr("kbsearch.dedupe.config_files.config_for", lambda spec, path: config)
    monkeypatch.setattr("kbsearch.dedupe.judged_passages.passage_disk", lambda judge: disks.passages)

    def token_encoder(spec: ModelSpec) -> RememberedTokens:
        assert reads_tokens, "a config that reads no token vectors loads no token encoder"
        return RememberedTokens(disks.token_encoder, disk=disks.tokens)

    monkeypatch.setattr("kbsearch.embed.load_token_encoder", token_encoder)
    return disks


def test_a_fill_keeps_the_newest_records_vectors_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "idx"
    written(root, [record(i, claims=[f"claim {i}"]) for i in range(4)])
    disks = fill_setup(tmp_path, monkeypatch, reads_tokens=True)

    assert token_fill.fill(root, "fake") > 0
    newest, older = record(3, claims=["claim 3"]), record(1, claims=["claim 1"])
    assert set(disks.tokens.get(newest.passages())) == set(newest.passages())
    assert disks.tokens.get(older.passages()) == {}
    batch = disk_key(newest.passages())  # the judge's vectors, one batch a record, as a check embeds them
    assert np.array_equal(disks.passages.get([batch])[batch], FakeEncoder("fakejudge").encode(newest.passages()))
    assert disks.passages.get([disk_key(older.passages())]) == {}
    seen = disks.token_encoder.texts_seen
    token_fill.fill(root, "fake")  # all on disk now: nothing is computed again
    assert disks.token_encoder.texts_seen == seen


def test_a_fill_stops_where_the_disk_tier_has_no_room(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "idx"
    records = [record(i, claims=[f"claim {i}"]) for i in range(4)]
    written(root, records)
    disks = fill_setup(tmp_path, monkeypatch, reads_tokens=True)
    monkeypatch.setenv("KBSEARCH_TOKEN_FILL", "4")
    count = disks.token_encoder.count_tokens
    newest_rows = sum(count(token_fill.plan_fill([records[3]], count, aligned_max_tokens=123).texts))
    monkeypatch.setenv("KBSEARCH_TOKEN_CACHE_ROWS", str(int(newest_rows / token_fill.FILL_SHARE) + 1))

    token_fill.fill(root, "fake")
    assert set(disks.tokens.get(records[3].passages())) == set(records[3].passages())
    assert disks.tokens.get(records[2].passages()) == {}
    assert disks.passages.get([disk_key(records[2].passages())]) == {}


def test_a_config_that_reads_no_token_vectors_fills_the_judges_vectors_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "idx"
    written(root, [record(0), record(1)])
    disks = fill_setup(tmp_path, monkeypatch, reads_tokens=False)
    assert token_fill.fill(root, "fake") == len(record(0).passages()) + len(record(1).passages())
    assert disks.passages.get([disk_key(record(1).passages())])
    assert disks.token_encoder.texts_seen == 0


@pytest.mark.parametrize(
    ("spec", "fill", "rows", "added", "started"),
    [
        (USE, "2000", "1000", 3, True),
        (USE, "2000", "1000", 0, False),  # nothing written
        (NO_JUDGE, "2000", "1000", 3, False),  # no token vectors to keep
        (USE, "0", "1000", 3, False),  # turned off
        (USE, "2000", "0", 3, False),  # no disk tier to fill
    ],
)
def test_an_ingest_starts_a_fill_only_when_it_wrote_and_one_is_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec: ModelSpec, fill: str, rows: str, added: int, started: bool
) -> None:
    starts: list[tuple[Path, str]] = []
    monkeypatch.setattr(token_fill, "start", lambda root, model: starts.append((root, model)))
    monkeypatch.setenv("KBSEARCH_TOKEN_FILL", fill)
    monkeypatch.setenv("KBSEARCH_TOKEN_CACHE_ROWS", rows)
    token_fill.after_ingest(tmp_path, spec, IngestReport(model="fake", added=added))
    assert starts == ([(tmp_path, "fake")] if started else [])


def test_a_second_fill_leaves_the_work_to_the_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(token_fill, "fill", lambda root, model: pytest.fail("filled while another fill ran"))
    monkeypatch.setattr(token_fill.os, "nice", lambda step: 0)
    tmp_path.mkdir(exist_ok=True)
    with FileLock(str(tmp_path / token_fill.FILL_LOCK)):
        assert token_fill.main([str(tmp_path), "fake"]) == 0


def test_the_module_runs_as_the_ingest_starts_it(fake_models: Path, tmp_path: Path) -> None:
    """``python -m kbsearch.kb.token_fill INDEX MODEL``, as ``start`` runs it: it ends,
    and with no judge it leaves nothing behind but its lock."""
    import json
    import subprocess
    import sys

    from kbsearch.cli import main

    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "a", "title": "SlabKV", "text": "tiers KV pages"}) + "\n", encoding="utf-8")
    index = tmp_path / "idx"
    assert main(["ingest", str(source), "--index", str(index)]) == 0
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "kbsearch.kb.token_fill", str(index), "fake"],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(root / "tests")])},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (0, "")


def test_past_the_tier_s_bound_the_oldest_filled_record_goes_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fill writes the newest record first; the tier trims the rows stamped first. The
    fill's stamps rank its records newest first, so a check's write past the bound lets
    the older record's rows go, and the newest record's (and the check's) stay."""
    import sqlite3

    root = tmp_path / "idx"
    older, newest = (record(i, claims=[f"claim {i}"]) for i in range(2))
    written(root, [older, newest])
    disks = fill_setup(tmp_path, monkeypatch, reads_tokens=True)
    token_fill.fill(root, "fake")
    with sqlite3.connect(disks.tokens.path) as db:
        held = db.execute("SELECT sum(n) FROM tokens").fetchone()[0]
    disks.tokens.max_rows = held  # full: the next write trims to 90%
    disks.tokens.put({"a text a check read after the fill": np.ones((1, 32), np.float16)})
    assert set(disks.tokens.get(newest.passages())) == set(newest.passages())
    assert "a text a check read after the fill" in disks.tokens.get(["a text a check read after the fill"])
    assert set(disks.tokens.get(older.passages())) < set(older.passages())
    # The judge's passage vectors, one batch a record, the same way.
    with sqlite3.connect(disks.passages.path) as db:
        disks.passages.max_rows = db.execute("SELECT sum(n) FROM tokens").fetchone()[0]
    disks.passages.put({"a batch a check read after the fill": np.ones((1, 32), np.float32)})
    assert disks.passages.get([disk_key(newest.passages())]) and not disks.passages.get([disk_key(older.passages())])


def test_ranked_rows_are_trimmed_in_the_order_given(tmp_path: Path) -> None:
    disk = DiskTokens(tmp_path / "tokens.sqlite", max_rows=3)
    for text in ("a", "b", "c"):  # written a first: unranked, a would go first
        disk.put({text: np.ones((1, 4), np.float16)})
    disk.rank(["a", "b", "c", "not on disk"], latest=1.0)
    disk.put({"d": np.ones((1, 4), np.float16)})  # 4 rows > 3: down to 2
    assert set(disk.get(["a", "b", "c", "d"])) == {"a", "d"}
