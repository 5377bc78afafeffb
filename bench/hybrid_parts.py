"""Hybrid search at 100k records: what the merged FTS index and the query embedded beside the lexical side each save.

    python bench/hybrid_parts.py [--index DIR] [--queries 200] [--rounds 2]

``--index`` is an index built by ``kbsearch ingest`` (``make bench-scale``
leaves one of 100k records in ``bench/.cache/work/index-100000``). The bench
copies it twice into ``--work``: one copy keeps FTS5's segments as the index
has them, the other is merged into one (``lexical_merge``, what the writer now
does after a bulk write). An index built before the writer merged has the
segments an ingest leaves (14 at 100k); one built since is merged already, and
the first row is then the second row again (the bench says so).

One warm process opens both copies with the real model and runs each
held-apart query (``corpus.held_out``, cut to 80 characters as typed) through
``KnowledgeBase.search`` (hybrid, k = 10, the call the CLI and the TUI make) in
five ways, in an order that rotates from query to query so that every way sees
the same load: each copy, with the dense side (the query's embedding and the
index walk) inline, before the lexical side, as before, and beside it, as now;
and the merged copy with the dense side beside but nothing read while it walks
(the lexical side's candidates' vectors and texts read after it, as before
``kbsearch.search.reads``). It prints p50 / p90 / p99 of each, each against the
first, and whether all five returned the same hits (ids and scores) for every
query.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import corpus
from benchlib import percentile

INDEX_FILES = ("kb.sqlite", "manifest.json", "vectors.faiss")


def copies(index: Path, work: Path) -> dict[str, Path]:
    """The index as ingested and merged, each copied once into ``work``."""
    import kbsearch.store.lexical_merge as lexical_merge

    made = {"as ingested": work / "hybrid-parts-as-ingested", "merged": work / "hybrid-parts-merged"}
    for name, folder in made.items():
        if not (folder / "kb.sqlite").exists():
            folder.mkdir(parents=True, exist_ok=True)
            for file in INDEX_FILES:
                shutil.copy2(index / file, folder / file)
        db = sqlite3.connect(folder / "kb.sqlite", isolation_level=None)
        if name == "merged" and lexical_merge.segments(db) > 1:
            db.execute("BEGIN IMMEDIATE")
            lexical_merge.after_write(db, 10**12)  # a change count past any threshold: merge now
            db.execute("COMMIT")
        print(f"- {name}: {lexical_merge.segments(db)} FTS5 segment(s)")
        db.close()
    return made


def inline_dense_side(*args):  # type: ignore[no-untyped-def]
    """The query embedded and the index walked before the lexical side starts, as hybrid search did."""
    import kbsearch.search.candidates as candidates

    found = candidates.dense_side(*args)
    if found is not None:
        found.walk.result()
    return found


def read_after_the_walk(*args):  # type: ignore[no-untyped-def]
    """Nothing read while the dense side walks: the lexical side's candidates are read after it, as before."""


def run(folders: dict[str, Path], queries: list[str], rounds: int) -> dict[str, list[float]]:
    import kbsearch.search.hybrid as hybrid
    from kbsearch.kb import KnowledgeBase
    from kbsearch.search.reads import CandidateReads

    beside, ahead = hybrid.dense_side, CandidateReads.read_ahead
    kbs = {name: KnowledgeBase.open(folder, corpus.MODEL) for name, folder in folders.items()}
    ways: list[tuple[str, str, Callable, Callable]] = [
        (f"{name}, {how}", name, fn, ahead)
        for name in kbs
        for how, fn in (("inline", inline_dense_side), ("beside", beside))
    ]
    ways.append(("merged, beside, the lexical side read after the walk", "merged", beside, read_after_the_walk))
    for kb in kbs.values():
        kb.search(queries[0], 10)  # the model, the graph, the first pages
    times: dict[str, list[float]] = {label: [] for label, _, _, _ in ways}
    hits: dict[str, list[list[tuple[str, float]]]] = {label: [] for label, _, _, _ in ways}
    for n, query in enumerate(queries * rounds):
        turn = n % len(ways)
        for label, name, fn, reads in ways[turn:] + ways[:turn]:
            hybrid.dense_side, CandidateReads.read_ahead = fn, reads
            started = time.perf_counter()
            response = kbs[name].search(query, 10)
            times[label].append((time.perf_counter() - started) * 1000)
            hits[label].append([(h.id, h.score) for h in response.results])
    hybrid.dense_side, CandidateReads.read_ahead = beside, ahead
    first = next(iter(hits.values()))
    same = all(found == first for found in hits.values())
    print(f"\nAll {len(ways)} ways returned the same hits (ids and scores) for every query: {'yes' if same else 'NO'}")
    return times


def report(times: dict[str, list[float]]) -> None:
    base = percentile(next(iter(times.values())), 0.5)
    print("\n| index, dense side | searches | p50 | p90 | p99 | p50 against the first row |")
    print("|---|---|---|---|---|---|")
    for label, values in times.items():
        p50, p90, p99 = (percentile(values, q) for q in (0.5, 0.9, 0.99))
        print(f"| {label} | {len(values)} | {p50:.1f} ms | {p90:.1f} ms | {p99:.1f} ms | {base / p50:.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=corpus.CACHE / "work" / "index-100000")
    parser.add_argument("--work", type=Path, default=corpus.CACHE / "work")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if not (args.index / "kb.sqlite").exists():
        raise SystemExit(f"{args.index}: no index there; 'make bench-scale' builds the 100k one")
    queries = [text[:80] for text in corpus.held_out(args.queries)]
    folders = copies(args.index, args.work)
    report(run(folders, queries, args.rounds))


if __name__ == "__main__":
    main()
