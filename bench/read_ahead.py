"""Hybrid search in a process that has just started, with and without the database read ahead.

    python bench/read_ahead.py [--index DIR] [--queries 300] [--rounds 1]

``--index`` is an index built by ``kbsearch ingest``, by default the one
``bench/scale_million.py`` leaves in its ``--work`` (bulk-1000000); at a million records its
database is gigabytes, and a search's few hundred scattered page reads go to
the disk unless the OS holds the pages. ``kbsearch serve`` and the TUI ask
the kernel to read the whole file ahead at start (``kbsearch.kb.read_ahead``,
the call they make).

Each way runs in a fresh process, after the bench has asked the OS to drop
the database file's pages from its cache (``POSIX_FADV_DONTNEED``, which any
user may ask for a file they can read), so that each starts as a server
started on a machine that had not read the file lately:

- **cold**: nothing read ahead; the searches start at once.
- **ahead, waited for**: ``read_ahead`` and its thread joined, then the searches.
- **ahead, at once**: ``read_ahead`` started and the searches at once, as
  a server's first requests meet it.

Every way opens the index, loads the model, asks two warm-up queries, then
the same held-apart queries (``corpus.held_out``, cut to 80 characters as
typed; never any index's records) through ``KnowledgeBase.search`` (hybrid,
k = 10), and prints p50 / p90 / p99 against the cold way's, the share of the
file in the OS's cache after (``fincore``, when installed) and how long the
read ahead took.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import corpus
from benchlib import percentile

WAYS = ("cold", "ahead, waited for", "ahead, at once")


def drop_from_os_cache(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def resident_share(path: Path) -> float | None:
    """The share of ``path``'s bytes in the OS's page cache, by ``fincore``; None without it."""
    if shutil.which("fincore") is None:
        return None
    out = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", str(path)], capture_output=True)
    text = out.stdout.decode().strip()
    return int(text) / path.stat().st_size if out.returncode == 0 and text.isdigit() else None


def child(index: Path, way: str, queries: list[str]) -> dict:
    """One way, in this (fresh) process: the seconds of each search."""
    from kbsearch.kb import KnowledgeBase, read_ahead

    with KnowledgeBase.open(index) as kb:
        began = time.perf_counter()
        thread = read_ahead(kb.root) if way != "cold" else None
        if thread is not None and way == "ahead, waited for":
            thread.join()
        waited = time.perf_counter() - began
        for query in ("warm up the model", "预热 another warm-up"):
            kb.search(query)
        seconds = []
        for query in queries:
            started = time.perf_counter()
            kb.search(query)
            seconds.append(time.perf_counter() - started)
        if thread is not None:
            thread.join()
        return {"seconds": seconds, "waited": waited}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        index, way, queries = Path(sys.argv[2]), sys.argv[3], json.loads(Path(sys.argv[4]).read_text("utf-8"))
        print(json.dumps(child(index, way, queries)))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=corpus.CACHE / "work" / "bulk-1000000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    database = args.index / "kb.sqlite"
    queries = [text[:80] for text in corpus.held_out(20_000)[: args.queries]]
    listed = args.index.parent / "read-ahead-queries.json"
    listed.write_text(json.dumps(queries, ensure_ascii=False), encoding="utf-8")
    size = database.stat().st_size / 1e9
    print(f"{args.index}: database {size:.1f} GB; {len(queries)} held-apart queries, load {os.getloadavg()[0]:.1f}\n")
    print("| way | round | p50 | p90 | p99 | in the OS cache after | read ahead took |")
    print("|---|---|---|---|---|---|---|")
    for round_ in range(1, args.rounds + 1):
        cold: dict[str, float] = {}
        for way in WAYS:
            drop_from_os_cache(database)
            done = subprocess.run(
                [sys.executable, __file__, "_child", str(args.index), way, str(listed)],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            got = json.loads(done.stdout.strip().splitlines()[-1])
            marks = {q: 1000 * percentile(got["seconds"], q) for q in (0.5, 0.9, 0.99)}
            cold = cold or marks
            cells = " | ".join(f"{marks[q]:.1f} ms ({marks[q] / cold[q]:.2f}×)" for q in marks)
            share = resident_share(database)
            took = f"{got['waited']:.1f} s (waited)" if way == "ahead, waited for" else "—"
            print(f"| {way} | {round_} | {cells} | {'?' if share is None else f'{share:.0%}'} | {took} |")


if __name__ == "__main__":
    main()
