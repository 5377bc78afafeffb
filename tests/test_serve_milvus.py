"""``kbsearch serve`` in front of Milvus: several writers, each its own process
with the write token, reach one server over HTTP; the server keeps the records
in SQLite and their vectors in Milvus (Lite here, a file the server holds)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np
import pytest
from serve_support import ROOT, TESTS, running_server, write_rows

from kbsearch.cli import main
from kbsearch.store import Store

TOPICS = (
    ("Photonic interconnect power drops", "optical chiplet links cut energy per bit by half"),
    ("稀疏注意力的长上下文训练", "百万词元窗口下块稀疏掩码把显存压到原来的三分之一"),
    ("Federated gradient sparsification", "clients send top one percent of gradient entries each round"),
    ("量化感知训练新基线", "四比特权重配合逐通道缩放在指令微调后几乎无损"),
)
BRIEFING = """\
# inference · E1 预消化简报(2026-09-2{day})

执行： Writer{n}

## 增量 1：{topic}（⭐⭐⭐）

- 来源：https://example.org/writer{n}
- 要点：
  - {point}
- 可信度：中

本报告由 Writer{n} 实例自动生成
"""


def writer(url: str, token: str, path: Path) -> subprocess.CompletedProcess[str]:
    """One writer on another host, as far as the server can tell: a process of its own."""
    env = {**os.environ, "KBSEARCH_TOKEN": token, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
    command = [sys.executable, "-m", "kbsearch", "check", str(path), "--accept", "--server", url, "--json"]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def test_several_writers_reach_one_server_that_keeps_vectors_in_milvus(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "idx"
    rows = [{"id": f"seed{i}", "title": f"seed record {i} about KV cache", "date": "2026-09-01"} for i in range(20)]
    source = write_rows(tmp_path / "seed.jsonl", rows)
    assert main(["ingest", str(source), "--index", str(index), "--vectors", f"milvus:{index}/vectors.db"]) == 0
    capsys.readouterr()
    briefings = []
    for n, (topic, point) in enumerate(TOPICS):
        path = tmp_path / f"inbox{n}" / f"2026-09-2{n}-writer{n}-inference-e1prep.md"
        path.parent.mkdir()
        path.write_text(BRIEFING.format(day=n, n=n, topic=topic, point=point), encoding="utf-8")
        briefings.append(path)
    with running_server(index, dict(os.environ)) as server:
        # Milvus Lite serves one process: a read of the folder goes to the server it finds there,
        # and a read forced to stay local is told to ask the server.
        argv = [sys.executable, "-m", "kbsearch", "search", "KV", "--mode", "dense", "--index", str(index)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
        found = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
        assert found.returncode == 0 and "seed" in found.stdout, found.stderr
        local = subprocess.run([*argv, "--local"], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
        assert local.returncode == 2 and "--server URL" in local.stderr and local.stderr.count("\n") == 1
        with ThreadPoolExecutor(len(briefings)) as pool:
            done = list(pool.map(lambda p: writer(server.url, server.write_token, p), briefings))
        assert [d.returncode for d in done] == [0] * len(TOPICS), [d.stderr for d in done]
        headers = {"Authorization": f"Bearer {server.read_token}"}
        for n, (topic, point) in enumerate(TOPICS):
            answer = httpx.post(
                f"{server.url}/api/search",
                json={"query": f"{topic} {point}", "k": 1, "mode": "dense"},
                headers=headers,
                timeout=60,
            )
            assert answer.status_code == 200, answer.text + "".join(server.log[-40:])
            hit = answer.json()["results"][0]
            assert f"writer{n}" in hit["id"] and hit["score"] > 0.5
        stats = httpx.post(f"{server.url}/api/stats", json={}, headers=headers, timeout=60).json()
        assert stats["vector_store"] == "milvus:vectors.db" and stats["records"] == 20 + len(TOPICS)
    # Stopped: SQLite holds the records, the collection their vectors, stamped with the last generation.
    assert not (index / "vectors.faiss").exists()
    with sqlite3.connect(index / "kb.sqlite") as db:
        assert db.execute("SELECT count(*) FROM records").fetchone()[0] == 20 + len(TOPICS)
    store = Store.open(index, model="fake")
    try:
        manifest = store.read_manifest()
        assert manifest is not None and manifest.generation == store.generation and manifest.index_type == "milvus"
        held = store.vector_index.ids()
        assert np.array_equal(np.sort(held), np.sort(store.passage_vector_ids()))
    finally:
        store.close()
