"""A lone first check's CPU in one process, this code beside a baseline tree, alternating.

    python bench/lone_check.py --base DIR [--pairs 3] [--index DIR] [--tokens DIR] [--scratch DIR] [--accept]

Issue 26's lone check without the HTTP in between: each run is a fresh
process that opens a copy of the 10k bench index as ``kbsearch serve`` does
(models on one core a run, ``KBSEARCH_JUDGE_THREADS=1``; the server's start
and its warm-up check), checks ten other items, then checks each of the 200
items ``serve_load.py --lone`` draws (``check_items``), each for the first
time in that process, one after the other. The token folder is a fresh copy
of a saved fill (``serve_load.py --filled N --fill-copy DIR``) for every run,
so each starts from what a server's would hold after the fill.

``--base`` is another checkout (a ``git worktree add --detach DIR main``):
its code runs in its own processes, a run of it and a run of this checkout
in turn, ``--pairs`` times. Printed per run: the main thread's CPU and the
process's CPU per check (p50 and mean), the wall p50 and the load average
before and after; then, per pair and over all, the median of the per-item
ratios this/base, and whether every check's JSON was byte-identical across
all runs of both.

``--accept``: after the warm-up checks, another knowledge base of the same
process (as the server's writer thread holds one, sharing its vector index
with the checks' as the server's threads do) accepts one new record
(``serve_load.new_records``: a paper's result summary under a new title and
id, ``ACCEPTED``), and then, where the tree's server builds what a write added
(``serve/warming.py`` watches for writes), the records it added are built
too, as that server's next look would; the 200 timed checks come after.
Each is then a first check after an accept.

Nothing is fitted here; wall times follow the machine's load, CPU times and
ratios from alternating runs much less.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from dev_stream import load_rows  # noqa: E402
from serve_load import CACHE, check_items, new_records  # noqa: E402

ITEMS = 200
"""The 200 items of ``serve_load.py``'s lone row (``check_items(rows, 200)``)."""
ACCEPTED = 16
"""``--accept``'s record: the first of ``new_records``' that check calls NEW on the 10k bench
index (the 16 before it are DUPLICATEs of their papers' increments, and accepting stores none)."""
WARM_UP_SEED = 12
"""Ten warm-up items drawn apart from the timed ones (``check_items``'s other seed)."""

CHILD = """
import json, sys, time
from pathlib import Path
from kbsearch.embed import run_side_by_side
from kbsearch.kb import IndexShare, KnowledgeBase
index, items, out = sys.argv[1], json.loads(Path(sys.argv[2]).read_text()), Path(sys.argv[3])
run_side_by_side()
share = IndexShare()  # as the server's threads share one: the writer's updated index is not read back
with KnowledgeBase(Path(index), KnowledgeBase.open(index).spec, index_share=share) as kb:
    kb.check_text("kbsearch serve warm-up")
    try:  # a tree whose server builds records ahead (serve --warm-records), as that server does
        from kbsearch.kb.warm_checks import records_to_warm, warm_checks
        from kbsearch.serve.options import WARMED_RECORDS
    except ImportError:
        WARMED_RECORDS = 0
    if WARMED_RECORDS:
        rss = lambda: int(next(l for l in open("/proc/self/status") if l.startswith("VmRSS")).split()[1]) // 1024
        began, cpu, before = time.perf_counter(), time.process_time(), rss()
        generation, rowids = records_to_warm(kb, WARMED_RECORDS)
        warm_checks(kb, rowids, WARMED_RECORDS, generation)
        print(f"records built ahead: {len(rowids)} in {time.perf_counter() - began:.1f} s, "
              f"{time.process_time() - cpu:.1f} CPU s, resident {before} -> {rss()} MB", file=sys.stderr)
    for text in items["warm_up"]:
        kb.check_text(text)
    if items.get("accept"):  # the server's writer thread: its own knowledge base, the same models
        with KnowledgeBase(kb.root, kb.spec, encoder=kb.encoder, judge=kb.judge, index_share=share) as writer:
            accepted = writer.check_text(items["accept"], name="accept.jsonl", accept=True).accepted
        if not accepted:
            sys.exit("the record to accept was not accepted")
        try:  # a tree whose server builds what a write added, as its next look would
            from kbsearch.serve.warming import WATCH_SECONDS
        except ImportError:
            WATCH_SECONDS = None
        if WARMED_RECORDS and WATCH_SECONDS:
            cpu = time.process_time()
            generation, rowids = records_to_warm(kb, WARMED_RECORDS)
            warm_checks(kb, rowids, WARMED_RECORDS, generation)
            print(f"records built after the accept: {len(rowids)}, {1000 * (time.process_time() - cpu):.1f} CPU ms",
                  file=sys.stderr)
    with out.open("w", encoding="utf-8") as sink:
        for text in items["timed"]:
            wall, cpu, thread = time.perf_counter(), time.process_time(), time.thread_time()
            result = kb.check_text(text)
            row = {"thread": time.thread_time() - thread, "process": time.process_time() - cpu}
            row["wall"] = time.perf_counter() - wall
            sink.write(json.dumps({**row, "json": result.model_dump_json()}) + "\\n")
"""


def drawn_items(scratch: Path, accept: bool = False) -> Path:
    """The timed items and the warm-up items (and with ``accept``, the record accepted
    before the timed ones), written once for every run's child."""
    rows = load_rows()
    timed = check_items(rows, ITEMS)
    warm_up = [t for t in check_items(rows, 20, seed=WARM_UP_SEED) if t not in timed][:10]
    drawn = {"timed": timed, "warm_up": warm_up}
    if accept:
        drawn["accept"] = json.dumps(new_records(rows, "lone/accept", 1, offset=ACCEPTED)[0], ensure_ascii=False)
    path = scratch / "items.json"
    path.write_text(json.dumps(drawn, ensure_ascii=False), encoding="utf-8")
    return path


def one_run(tree: Path, label: str, args: argparse.Namespace, items: Path) -> list[dict[str, Any]]:
    """One child process of ``tree``'s code over fresh copies of the index and the token folder."""
    index, tokens, out = args.scratch / "run-index", args.scratch / "run-tokens", args.scratch / f"{label}.jsonl"
    for source, target in ((args.index, index), (args.tokens, tokens)):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("serve-*", "records.jsonl"))
    env = dict(os.environ, PYTHONPATH=str(tree), KBSEARCH_JUDGE_THREADS="1", KBSEARCH_TOKEN_CACHE=str(tokens))
    env["KBSEARCH_TOKEN_FILL"] = "0"  # no fill started beside what is timed
    before = load_average()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(index), str(items), str(out)],
        cwd=tree, env=env, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"{label} failed:\n{done.stderr}")
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    print(f"{label:10} {summary(rows)}   load {before} -> {load_average()}", flush=True)
    for line in done.stderr.splitlines():
        if line.startswith("records built"):
            print(f"{'':10} {line}")
    return rows


def summary(rows: list[dict[str, Any]]) -> str:
    thread, process, wall = ([1000 * r[k] for r in rows] for k in ("thread", "process", "wall"))
    return (
        f"main thread p50 {statistics.median(thread):6.1f} mean {statistics.fmean(thread):6.1f} "
        f"first {thread[0]:6.1f} ms | "
        f"process p50 {statistics.median(process):6.1f} mean {statistics.fmean(process):6.1f} ms | "
        f"wall p50 {statistics.median(wall):6.1f} ms"
    )


def load_average() -> str:
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def ratios(new: list[dict[str, Any]], base: list[dict[str, Any]], key: str) -> float:
    """The median over items of this run's CPU over the base run's, item by item."""
    return statistics.median(n[key] / b[key] for n, b in zip(new, base, strict=True) if b[key] > 0)


def identical(runs: list[list[dict[str, Any]]]) -> int:
    """How many items gave the same JSON, byte for byte, in every run."""
    return sum(len({run[n]["json"] for run in runs}) == 1 for n in range(len(runs[0])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the baseline checkout (a detached worktree)")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--index", type=Path, default=CACHE / "index-10k", help="copied, never written")
    parser.add_argument("--tokens", type=Path, default=CACHE / "fill-20000", help="a saved fill; copied each run")
    parser.add_argument("--scratch", type=Path, default=CACHE.parent / "lone-check", help="the copies and results")
    parser.add_argument("--accept", action="store_true", help="accept one new record before the timed checks")
    args = parser.parse_args()
    for folder in (args.index, args.tokens, args.base):
        if not folder.is_dir():
            raise SystemExit(f"no folder {folder} (serve_load.py --lone N --filled 20000 --fill-copy DIR saves a fill)")
    args.scratch.mkdir(parents=True, exist_ok=True)
    items = drawn_items(args.scratch, args.accept)
    after = ", after an accept" if args.accept else ""
    print(f"{ITEMS} first checks a run{after}; this {ROOT}, base {args.base.resolve()}")
    runs: dict[str, list[list[dict[str, Any]]]] = {"base": [], "this": []}
    for pair in range(1, args.pairs + 1):
        for name, tree in (("base", args.base.resolve()), ("this", ROOT)):
            runs[name].append(one_run(tree, f"{name}-{pair}", args, items))
        new, base = runs["this"][-1], runs["base"][-1]
        print(f"{'':10} pair {pair}: median per-item ratio this/base, main thread "
              f"{ratios(new, base, 'thread'):.3f}, process {ratios(new, base, 'process'):.3f}")  # fmt: skip
    everything = runs["base"] + runs["this"]
    pairs = list(zip(runs["this"], runs["base"], strict=True))
    pooled = {k: statistics.median(ratios(n, b, k) for n, b in pairs) for k in ("thread", "process")}
    print(f"median of the pairs' ratios: main thread {pooled['thread']:.3f}, process {pooled['process']:.3f}")
    same = identical(everything)
    verdict = "" if same == ITEMS else "  DIFFERENT"
    print(f"JSON byte-identical in all {len(everything)} runs: {same} of {ITEMS} items{verdict}")


if __name__ == "__main__":
    main()
