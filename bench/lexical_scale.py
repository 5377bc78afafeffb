"""Hybrid search at 100k and 1M records: the lexical plan before and after, side by side.

    python bench/lexical_scale.py [--sizes 100000,1000000] [--work DIR] [--queries 200] [--default-graph]

The records are the corpus of ``bench/corpus.py`` (its first N lines, real
text in both languages). Their vectors come from the corpus's vector cache
where it holds them (all of the first 100k records' texts, encoded by the real
model) and, for the rest, from a seeded pseudo-random unit vector per text:
encoding a million texts takes hours here, and what this bench measures is the
lexical side, which never reads a vector. The dense side of a 1M search is
therefore a graph walk over mostly synthetic vectors, which costs what a real
one costs (the graph's size and shape do not depend on the vectors' meaning).
The 100k index is built through ``kbsearch ingest`` (its graph with ``M`` 16
and ``efConstruction`` 40), the 1M one from its records copied (see
``child_replicate``), its graph with ``M`` 8 and ``efConstruction`` 16 to take
minutes rather than most of an hour; ``--default-graph`` builds the 1M graph
with kbsearch's own parameters instead, the graph a user's index gets. The
indexes are built once and kept under ``--work``.

Then one warm process per size opens the index with the real model and runs
the held-apart queries (``corpus.held_out``, cut to 80 characters as typed)
through ``KnowledgeBase.search``, hybrid, k = 10, the call the CLI and the TUI
make: each query once with the old lexical plan and once with the new one,
alternating which goes first, so both see the same load. It prints p50/p99 of
each, their ratio, how often the two agree on the first hit and on the top 10,
and where the old plan's time went (the lexical calls timed alone).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import corpus
from benchlib import percentile, report_peak_rss, run_child

SELF = [sys.executable, __file__]
MODEL = corpus.MODEL
BUILT = "built.json"


# -- building the indexes ---------------------------------------------------------


class CorpusOrSynthetic:
    """The corpus cache's real vector for a text it holds, else a seeded
    pseudo-random unit vector (the same for the same text): no model is loaded."""

    def __init__(self, name: str) -> None:
        import sqlite3

        self.model_id = name
        self.dim = 512
        self.db = sqlite3.connect(corpus.CACHE / f"vectors-{MODEL}.sqlite", check_same_thread=False)
        self.real = 0
        self.synthetic = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        hashes = [corpus.text_hash(t) for t in texts]
        found = corpus.stored_vectors(self.db, hashes)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, h in enumerate(hashes):
            if h in found:
                out[i] = np.frombuffer(found[h], dtype=np.float32)
                self.real += 1
            else:
                v = np.random.default_rng(int(h, 16)).standard_normal(self.dim).astype(np.float32)
                out[i] = v / np.linalg.norm(v)
                self.synthetic += 1
        return out


def make_encoder(spec: object) -> CorpusOrSynthetic:
    return CorpusOrSynthetic(getattr(spec, "name", MODEL))


def quick_graph(**graph: int) -> None:
    """This child builds its HNSW graph with these parameters (none: kbsearch's
    own) and no background compaction: the bench times search on the graph,
    not how long a full-quality build takes here."""
    from dataclasses import dataclass

    import kbsearch.store.vector_cache as vector_cache
    import kbsearch.vector_index.facade as index_facade
    from kbsearch.vector_index.params import IndexParams

    @dataclass(frozen=True)
    class QuickBuild(IndexParams):
        background_compaction: bool = False

    params = functools.partial(QuickBuild, **graph)
    vector_cache.IndexParams = params  # type: ignore[assignment,misc]
    index_facade.IndexParams = params  # type: ignore[assignment,misc]


def child_build(data: str, index: str) -> None:
    """``kbsearch ingest`` of one corpus file with the vectors above; above the
    exact range the graph is built with ``M`` 16, ``efConstruction`` 40."""
    from kbsearch.cli import main as kbsearch_main

    quick_graph(hnsw_m=16, ef_construction=40)
    started = time.perf_counter()
    code = kbsearch_main(["ingest", data, "--index", index, "--json"])
    if code:
        raise SystemExit(code)
    (Path(index) / BUILT).write_text(json.dumps({"seconds": time.perf_counter() - started}), encoding="utf-8")
    report_peak_rss()


def child_replicate(small: str, copies: int, index: str, graph: str = "quick") -> None:
    """The 1M index: the 100k one (built by ``kbsearch ingest``) and nine
    copies of each of its records under new ids, written by SQL inside one
    transaction: the records, their passages (the same texts, so the same
    stored vectors), ids, references and FTS rows (tokenized by FTS5 as any
    insert is, then merged into one segment), the trigram counts times ten.
    Then the graph is built once from the stored vectors (``M`` 8,
    ``efConstruction`` 16; with ``graph`` "default", kbsearch's own ``M`` 24
    and ``efConstruction`` 120, the graph a user's 1M index gets).

    A whole ``kbsearch ingest`` of the 1M corpus, or the writer fed its next
    900k records, ran at under 100 records a second on this shared machine
    (load 10): hours. Copies keep every posting list's length what the 100k
    corpus's is, times ten, which is what a million records of this kind of
    text do to a common term; a rare term is ten times less rare than it
    would be."""
    import shutil

    from kbsearch.store import Store, writer
    from kbsearch.store.sql import write_meta

    if graph == "default":
        quick_graph()
    else:
        quick_graph(hnsw_m=8, ef_construction=16)
    started = time.perf_counter()
    Path(index).mkdir(parents=True)
    shutil.copy(Path(small) / "kb.sqlite", Path(index) / "kb.sqlite")
    store = Store.open(Path(index), model=MODEL)
    db = store.db
    (offset,) = db.execute("SELECT max(rowid) FROM records").fetchone()
    columns = "kind, title, text, date, instance, topic, section, source, file, position, content_hash"
    # A copy's pages held in memory until it commits: spilled into the WAL
    # mid-transaction, each write searched a WAL of gigabytes.
    db.execute("PRAGMA cache_size = -2000000")
    # No merging while the copies go in (each merge rewrites what the last
    # wrote: an hour at this load); one merge into a single segment at the end.
    db.execute("INSERT INTO records_fts(records_fts, rank) VALUES ('automerge', 0)")
    for k in range(1, copies):
        shift = k * offset
        with writer.transaction(store):
            db.execute(
                f"INSERT INTO records(rowid, id, {columns}, data, ingested_at) "
                f"SELECT rowid + ?1, id || '~' || ?2, {columns}, json_set(data, '$.id', id || '~' || ?2), ingested_at "
                "FROM records WHERE rowid <= ?3",
                (shift, k, offset),
            )
            for table, rest in (
                ("passages", "idx, content_hash"),
                ("record_arxiv", "arxiv_id, role"),
                ("record_refs", "ref"),
            ):
                sql = f"INSERT INTO {table} SELECT rowid + ?, {rest} FROM {table} WHERE rowid <= ?"
                db.execute(sql, (shift, offset))
            db.execute(
                "INSERT INTO records_fts(rowid, title, body, meta) "
                "SELECT rowid + ?, title, body, meta FROM records_fts WHERE rowid <= ?",
                (shift, offset),
            )
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        print(f"  copy {k}: {(time.perf_counter() - started) / 60:.1f} min", file=sys.stderr, flush=True)
    with writer.transaction(store):
        db.execute("INSERT INTO records_fts(records_fts) VALUES ('optimize')")
        db.execute("INSERT INTO records_fts(records_fts, rank) VALUES ('automerge', 4)")  # FTS5's default again
        db.execute("UPDATE lexical_counts SET records = records * ?", (copies,))
        write_meta(db, "generation", str(store.generation + 1))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    print(f"  merged: {(time.perf_counter() - started) / 60:.1f} min", file=sys.stderr, flush=True)
    writer._refresh_index(store, None, np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), MODEL)
    print(f"  graph built: {(time.perf_counter() - started) / 60:.1f} min", file=sys.stderr, flush=True)
    store.close()
    (Path(index) / BUILT).write_text(json.dumps({"seconds": time.perf_counter() - started}), encoding="utf-8")
    report_peak_rss()


def build(records: int, work: Path, default_graph: bool = False) -> Path:
    """The index of ``records`` records, built once into ``work``; past 100k
    with kbsearch's own graph when ``default_graph``, else a quick one."""
    default_graph = default_graph and records > 100_000
    index = work / f"lexical-{records}{'-default-graph' if default_graph else ''}"
    if (index / BUILT).is_file():
        return index
    if records > 100_000:
        import shutil

        small = build(100_000, work)
        shutil.rmtree(index, ignore_errors=True)
        print(f"building {index} from {small} ...", file=sys.stderr, flush=True)
        copies = str(records // 100_000)
        graph = "default" if default_graph else "quick"
        seconds, rss, _, _ = run_child([*SELF, "_replicate", str(small), copies, str(index), graph], _search_env())
        print(f"built in {seconds / 60:.1f} min, peak {rss:,} MB", file=sys.stderr, flush=True)
        return index
    import shutil

    shutil.rmtree(index, ignore_errors=True)
    models = work / "models-synthetic.txt"
    models.write_text(f"{MODEL}  python:lexical_scale:make_encoder  dim=512\n", encoding="utf-8")
    env = dict(
        os.environ,
        KBSEARCH_MODELS=str(models),
        PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parent), str(corpus.ROOT)]),
    )
    data = corpus.corpus_file(records)
    print(f"building {index} from {data} ...", file=sys.stderr, flush=True)
    seconds, rss, _, _ = run_child([*SELF, "_build", str(data), str(index)], env)
    print(f"built in {seconds / 60:.1f} min, peak {rss:,} MB", file=sys.stderr, flush=True)
    return index


# -- the search session ---------------------------------------------------------

PLANS = ("before", "after")


def child_latency(index: str, queries_file: str) -> None:
    """One warm session: every query through ``KnowledgeBase.search`` (hybrid,
    then lexical mode) under each plan, alternating which goes first; the
    lexical calls of the store are timed as they run."""
    from kbsearch.kb import KnowledgeBase
    from kbsearch.search import SearchMode
    from kbsearch.store.lexical_plan import DEFAULT_PLAN, EXHAUSTIVE

    queries = json.loads(Path(queries_file).read_text(encoding="utf-8"))
    plans = {"before": EXHAUSTIVE, "after": DEFAULT_PLAN}
    started = time.perf_counter()
    kb = KnowledgeBase.open(index, MODEL)
    kb.search(queries[0], 10)  # loads the model, opens the index, upgrades its schema if it must
    opened = time.perf_counter() - started
    store = kb.store
    spent: dict[str, float] = {}
    for name in ("lexical_search", "term_weights", "records_with_names", "lexical_scores"):
        inner = getattr(store, name)

        def timed(*args, _inner=inner, **kwargs):  # type: ignore[no-untyped-def]
            began = time.perf_counter()
            try:
                return _inner(*args, **kwargs)
            finally:
                spent["lexical"] = spent.get("lexical", 0.0) + time.perf_counter() - began

        setattr(store, name, timed)
    out: dict[str, dict[str, list]] = {
        plan: {"hybrid": [], "lexical_side": [], "lexical_mode": [], "top": []} for plan in PLANS
    }
    for plan in PLANS:  # warm each plan's pages once
        store.lexical_plan = plans[plan]
        kb.search(queries[1], 10)
    for i, query in enumerate(queries):
        for plan in PLANS if i % 2 == 0 else reversed(PLANS):
            store.lexical_plan = plans[plan]
            spent.clear()
            began = time.perf_counter()
            response = kb.search(query, 10)
            out[plan]["hybrid"].append((time.perf_counter() - began) * 1000)
            out[plan]["lexical_side"].append(spent.get("lexical", 0.0) * 1000)
            out[plan]["top"].append([hit.id for hit in response.results])
            began = time.perf_counter()
            kb.search(query, 10, mode=SearchMode.lexical)
            out[plan]["lexical_mode"].append((time.perf_counter() - began) * 1000)
    print(json.dumps({"plans": out, "open_s": opened, "records": store.count()}))
    report_peak_rss()


def child_lexical(index: str, queries_file: str) -> None:
    """The lexical side alone, for an index whose graph is not built yet:
    lexical mode through ``KnowledgeBase.search`` (no model, no vectors), and
    hybrid's lexical calls as ``search.gather`` and ``search.rank`` make them
    for a hybrid search without its dense candidates."""
    from kbsearch.kb import KnowledgeBase
    from kbsearch.search import DEFAULT_FUSION, SearchMode, gather, rank
    from kbsearch.store import SearchFilter
    from kbsearch.store.lexical import query_terms
    from kbsearch.store.lexical_plan import DEFAULT_PLAN, EXHAUSTIVE

    queries = json.loads(Path(queries_file).read_text(encoding="utf-8"))
    plans = {"before": EXHAUSTIVE, "after": DEFAULT_PLAN}
    kb = KnowledgeBase.open(index, MODEL)
    store = kb.store
    out: dict[str, dict[str, list]] = {plan: {"lexical_side": [], "lexical_mode": []} for plan in PLANS}
    for i, query in enumerate(queries):
        for plan in PLANS if i % 2 == 0 else reversed(PLANS):
            store.lexical_plan = plans[plan]
            with store.snapshot():
                began = time.perf_counter()
                terms = query_terms(query)
                found = gather(store, terms, None, SearchFilter(), SearchMode.hybrid, 10, DEFAULT_FUSION)
                rank(store, found, terms, None, SearchMode.hybrid, DEFAULT_FUSION)
                out[plan]["lexical_side"].append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            kb.search(query, 10, mode=SearchMode.lexical)
            out[plan]["lexical_mode"].append((time.perf_counter() - began) * 1000)
    print(json.dumps({"plans": out, "records": store.count()}))
    report_peak_rss()


def lexical_only(indexes: dict[int, Path], queries: Path) -> None:
    print("\n| records | plan | hybrid's lexical side p50 / p99 | lexical mode p50 / p99 |\n|---|---|---|---|")
    for n, index in indexes.items():
        load = os.getloadavg()[0]
        _, _, out, _ = run_child([*SELF, "_lexical", str(index), str(queries)], _search_env())
        got = json.loads(out)
        for plan in PLANS:
            row = got["plans"][plan]
            print(f"| {n:,} | {plan} | {_p(row['lexical_side'])} | {_p(row['lexical_mode'])} |")
        before, after = got["plans"]["before"], got["plans"]["after"]
        side = percentile(before["lexical_side"], 0.5) / percentile(after["lexical_side"], 0.5)
        mode = percentile(before["lexical_mode"], 0.5) / percentile(after["lexical_mode"], 0.5)
        print(f"| {n:,} | ratio (p50) | {side:.1f}x | {mode:.1f}x |")
        print(
            f"\n{n:,}: load {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end\n", file=sys.stderr, flush=True
        )


def child_budgets(index: str, queries_file: str, budgets: str) -> None:
    """Hybrid search with the old plan once, then with each posting budget:
    its p50 and how often its first hit and top 10 are the old plan's."""
    from kbsearch.kb import KnowledgeBase
    from kbsearch.store.lexical_plan import EXHAUSTIVE, LexicalPlan

    queries = json.loads(Path(queries_file).read_text(encoding="utf-8"))
    kb = KnowledgeBase.open(index, MODEL)
    kb.search(queries[0], 10)
    kb.store.lexical_plan = EXHAUSTIVE
    old = [[_original(hit.id) for hit in kb.search(q, 10).results] for q in queries]
    print("\n| posting budget | hybrid search p50 | first hit as the old plan's | top 10 as the old plan's |")
    print("|---|---|---|---|")
    for budget in (int(b) for b in budgets.split(",")):
        kb.store.lexical_plan = LexicalPlan(posting_budget=budget)
        spent, new = [], []
        for query in queries:
            began = time.perf_counter()
            new.append([_original(hit.id) for hit in kb.search(query, 10).results])
            spent.append((time.perf_counter() - began) * 1000)
        first = sum(a[:1] == b[:1] for a, b in zip(old, new, strict=True)) / len(old)
        top = sum(len(set(a) & set(b)) / max(1, len(set(a))) for a, b in zip(old, new, strict=True)) / len(old)
        print(f"| {budget:,} | {percentile(spent, 0.5):.1f} ms | {first:.3f} | {top:.3f} |", flush=True)
    report_peak_rss()


def latency(indexes: dict[int, Path], queries: Path) -> None:
    print(
        "\n| records | plan | hybrid search p50 / p99 | its lexical side p50 / p99 | lexical mode p50 / p99 "
        "| first hit as before | top 10 as before |"
    )
    print("|---|---|---|---|---|---|---|")
    for n, index in indexes.items():
        load = os.getloadavg()[0]
        _, rss, out, _ = run_child([*SELF, "_latency", str(index), str(queries)], _search_env())
        got = json.loads(out)
        before, after = got["plans"]["before"], got["plans"]["after"]
        # A copy of a record (the 1M index's "id~k") is the record: copies tie,
        # and which of them a plan lists first says nothing about the plan.
        olds = [[_original(i) for i in top] for top in before["top"]]
        news = [[_original(i) for i in top] for top in after["top"]]
        first = sum(a[:1] == b[:1] for a, b in zip(olds, news, strict=True)) / len(olds)
        overlap = sum(len(set(a) & set(b)) / max(1, len(set(a))) for a, b in zip(olds, news, strict=True)) / len(olds)
        for plan in PLANS:
            row = got["plans"][plan]
            same = "" if plan == "before" else f"{first:.3f}"
            share = "" if plan == "before" else f"{overlap:.3f}"
            print(
                f"| {n:,} | {plan} | {_p(row['hybrid'])} | {_p(row['lexical_side'])} | {_p(row['lexical_mode'])} "
                f"| {same} | {share} |"
            )
        ratio = percentile(before["hybrid"], 0.5) / percentile(after["hybrid"], 0.5)
        print(
            f"| {n:,} | ratio (p50) | {ratio:.1f}x | "
            f"{percentile(before['lexical_side'], 0.5) / max(percentile(after['lexical_side'], 0.5), 1e-9):.1f}x "
            f"| {percentile(before['lexical_mode'], 0.5) / percentile(after['lexical_mode'], 0.5):.1f}x | | |"
        )
        print(
            f"\n{n:,}: load {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; "
            f"open (first search) {got['open_s']:.1f} s; peak RSS {rss:,} MB\n",
            file=sys.stderr,
            flush=True,
        )


def _original(record_id: str) -> str:
    return record_id.split("~")[0]


def _p(values: list[float]) -> str:
    return f"{percentile(values, 0.5):.1f} / {percentile(values, 0.99):.1f} ms"


def _search_env() -> dict[str, str]:
    """The real model (to embed the queries), named as the index's, without a judge."""
    import re

    path = corpus.CACHE / "models-alone.txt"
    text = (corpus.ROOT / "models.txt").read_text(encoding="utf-8")
    path.write_text(re.sub(r" judge=\S+", "", text), encoding="utf-8")
    return dict(os.environ, KBSEARCH_MODELS=str(path))


def queries_file(work: Path, count: int) -> Path:
    """Held-apart queries: real texts no indexed record holds, cut as typed queries are."""
    path = work / f"lexical-queries-{count}.json"
    path.write_text(json.dumps([text[:80] for text in corpus.held_out(count)], ensure_ascii=False), encoding="utf-8")
    return path


# -- what keeping the counts costs a write ---------------------------------------------


def write_cost(records: int, rounds: int = 2) -> None:
    """The same records written into a new index with the trigram counts kept
    and with their upkeep switched off, alternating, through ``ingest_records``
    (parse aside: the records are made once; vectors synthetic, as above)."""
    import tempfile

    from kbsearch.ingest import ingest_records
    from kbsearch.parse import jsonl
    from kbsearch.store import ChangeSet, Store
    from kbsearch.store.lexical_counts import PendingCounts

    data = corpus.corpus_file(100_000)
    with data.open(encoding="utf-8") as lines:
        rows = [
            jsonl._record(json.loads(line), jsonl._Where(data, "line", n + 1), n, [])
            for n, line in zip(range(records), lines, strict=False)
        ]
    encoder = CorpusOrSynthetic(MODEL)
    kept = (PendingCounts.add, PendingCounts.remove_stored, PendingCounts.flush)
    seconds: dict[str, list[float]] = {"with the counts": [], "without": []}
    for _ in range(rounds):
        for label in seconds:
            if label == "without":
                PendingCounts.add = PendingCounts.remove_stored = PendingCounts.flush = lambda *a: None  # type: ignore[method-assign,assignment]
            with tempfile.TemporaryDirectory(prefix="kbsearch-write-") as tmp:
                store = Store.open(Path(tmp), create=True)
                began = time.perf_counter()
                ingest_records(store, ChangeSet(upserts=list(rows)), model=MODEL, load_encoder=lambda: encoder)
                seconds[label].append(time.perf_counter() - began)
                store.close()
            PendingCounts.add, PendingCounts.remove_stored, PendingCounts.flush = kept  # type: ignore[method-assign]
    best = {label: min(values) for label, values in seconds.items()}
    print(f"\n| {records:,} records written | with the counts | without | ratio |\n|---|---|---|---|")
    print(
        f"| best of {rounds}, load {os.getloadavg()[0]:.1f} | {best['with the counts']:.1f} s "
        f"| {best['without']:.1f} s | {best['with the counts'] / best['without']:.2f}x |"
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_build":
        return child_build(sys.argv[2], sys.argv[3])
    if len(sys.argv) > 1 and sys.argv[1] == "_replicate":
        return child_replicate(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
    if len(sys.argv) > 1 and sys.argv[1] == "_latency":
        return child_latency(sys.argv[2], sys.argv[3])
    if len(sys.argv) > 1 and sys.argv[1] == "_lexical":
        return child_lexical(sys.argv[2], sys.argv[3])
    if len(sys.argv) > 1 and sys.argv[1] == "_budgets":
        return child_budgets(sys.argv[2], sys.argv[3], sys.argv[4])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--work", type=Path, default=corpus.CACHE / "work")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument(
        "--default-graph",
        action="store_true",
        help="past 100k, the graph kbsearch builds (M 24, efConstruction 120; most of an hour at 1M), not a quick one",
    )
    parser.add_argument("--lexical-only", action="store_true", help="the lexical side alone, on --index as it is")
    parser.add_argument("--index", type=Path, help="with --lexical-only: this index, of --sizes records")
    parser.add_argument("--budgets", help="only: hybrid with these posting budgets (2000,10000) against the old plan")
    parser.add_argument(
        "--write-cost", type=int, metavar="N", help="only: N records written with and without the counts"
    )
    args = parser.parse_args()
    corpus.require_eval()
    if args.write_cost:
        return write_cost(args.write_cost)
    args.work.mkdir(parents=True, exist_ok=True)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if args.lexical_only:
        return lexical_only({sizes[0]: args.index}, queries_file(args.work, args.queries))
    if args.budgets:
        index = build(sizes[0], args.work)
        print(f"# {sizes[0]:,} records, load {os.getloadavg()[0]:.1f}", flush=True)
        command = [*SELF, "_budgets", str(index), str(queries_file(args.work, args.queries)), args.budgets]
        _, _, out, _ = run_child(command, _search_env())
        print(out + f"load {os.getloadavg()[0]:.1f} at the end")
        return
    indexes = {n: build(n, args.work, args.default_graph) for n in sizes}
    if args.build_only:
        return
    print(f"# hybrid search, the lexical plan before and after; {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    latency(indexes, queries_file(args.work, args.queries))


if __name__ == "__main__":
    main()
