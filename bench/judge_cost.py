"""What the judge model costs: the default (USE with the e5 judge) beside USE alone.

    python bench/judge_cost.py [--records 2000] [--checks 60] [--repeats 2]

The same records are ingested twice by whole ``kbsearch ingest`` processes:
once with the default models.txt (``use-multilingual-v3 … judge=multilingual-e5-small``)
and once with a copy whose line names no judge (the judge turned off), the
two alternating, best of ``--repeats``. Each ingest is timed with its CPU seconds (every thread): with both cores
busy, its wall time cannot fall below half of them. The default ingest runs
with the background fill on, as a user's does: it leaves the judge's
whole-text vectors to the fill (``kbsearch/kb/judge_fill.py``), so the fill's
cost is printed beside it: the time from the ingest's start until every
judge vector is written, and the fill's CPU (``bench/fill_watch.py`` watches
it; the bench waits for it to end before timing the next process). Raw USE
embedding one text per record (load + encode, in a process of its own, as
``bench/scale.py``'s baseline) is measured in the same run: the closing table
puts each ingest against it. A fresh default ingest is then checked while its
fill runs (a user's next ingest of 20 new records, its wait for the writer
lock, warm checks) and again once the fill is done.

Then, for each index:

- re-ingest of the same file (nothing embedded, by either model);
- the index's size on disk (kb.sqlite with its WAL, and the vector cache);
- warm check latency in one process: ``--checks`` one-item JSONL checks,
  p50 / p99, both models loaded first; once for cards of papers the index
  does not hold (NEW), once for second cards of papers it holds (the same
  item, so the judge also reads the item's claims and the known card's
  passages);
- a cold check: a whole ``kbsearch check ITEM.jsonl`` process, which loads
  the judge as well as the index's model.

Records are the dev digest stream's papers as cards, digest increments and
English abstracts (bench/dev_stream.py), read from ../shared/eval at run
time; the checked items are cards of papers the index does not hold. The
machine is shared: the ratios in the last column are the steadier figures.
A third ingest per repeat, the default models with the fill off
(``KBSEARCH_TOKEN_FILL=0``: the judge's vectors embedded inline, beside USE),
gives the ingest row the other way in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchlib import one_item_files, write_jsonl  # noqa: E402
from dev_stream import load_rows, to_records  # noqa: E402
from fill_watch import FillTimes, FillWatch  # noqa: E402

KBSEARCH = [sys.executable, "-m", "kbsearch"]
FILL = 20_000
"""Records the fill may take: all of them here, as the default bound does at this size."""
USE, JUDGE = "use-multilingual-v3", "multilingual-e5-small"
INLINE = "USE + e5 judge inline (the fill off)"


def models_alone(folder: Path) -> Path:
    """models.txt with every ``judge=`` dropped: the judge turned off, as a user would."""
    path = folder / "models-alone.txt"
    path.write_text(re.sub(r" judge=\S+", "", (ROOT / "models.txt").read_text(encoding="utf-8")), encoding="utf-8")
    return path


def environ(models: Path | None, tokens: Path, fill: int = 0) -> dict[str, str]:
    """The environment of one setup: the fill an ingest starts in the background on
    (``fill`` records) or off, into a token folder of this run's own, empty at the start."""
    env = {k: v for k, v in os.environ.items() if k != "KBSEARCH_MODELS"}
    env.update(KBSEARCH_TOKEN_FILL=str(fill), KBSEARCH_TOKEN_CACHE=str(tokens))
    if models is not None:
        env["KBSEARCH_MODELS"] = str(models)
    return env


def timed(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    seconds, _, out = timed_cpu(args, env)
    return seconds, out


def timed_cpu(args: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system, every thread) and stdout of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=env)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args[2:5])} failed ({proc.returncode}): {proc.stderr.strip()[-600:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu, proc.stdout


def raw_use(records: Path, folder: Path, env: dict[str, str]) -> tuple[float, float]:
    """Raw USE, one text per record (each record's whole text, as ``bench/scale.py``'s baseline):
    (load + encode seconds, measured inside its process; that process's CPU seconds)."""
    from kbsearch.parse.jsonl import iter_jsonl

    texts = folder / "wholes.json"
    texts.write_text(json.dumps([r.embed_text() for r in iter_jsonl(records, [])], ensure_ascii=False), "utf-8")
    code = (
        "import json, sys, time\n"
        "from kbsearch.embed import load_encoder\n"
        "from kbsearch.models import resolve_model\n"
        "texts = json.load(open(sys.argv[1], encoding='utf-8'))\n"
        "started = time.perf_counter()\n"
        "encoder = load_encoder(resolve_model(sys.argv[2]))\n"
        "for begin in range(0, len(texts), 256):\n"
        "    encoder.encode(texts[begin : begin + 256])\n"
        "print(time.perf_counter() - started)\n"
    )
    _, cpu, out = timed_cpu([sys.executable, "-c", code, str(texts), USE], env)
    return float(out.strip().splitlines()[-1]), cpu


def size_mb(index: Path) -> tuple[float, float]:
    """(database with its WAL, vector cache) in MB."""
    database = sum(p.stat().st_size for p in index.glob("kb.sqlite*"))
    cache = sum(p.stat().st_size for p in index.glob("vectors.faiss"))
    return database / 1e6, cache / 1e6


def warm_checks(index: Path, items: list[Path], env: dict[str, str]) -> tuple[float, float]:
    """p50 / p99 ms of one-item checks in one process (a child, so it reads ``env``)."""
    code = (
        "import json, sys, time\n"
        "from kbsearch.kb import KnowledgeBase\n"
        "kb = KnowledgeBase.open(sys.argv[1])\n"
        "kb.encoder.encode(['warm up']); judge = kb.judge; judge and judge.encode(['warm up'])\n"
        "kb.check(sys.argv[2])\n"
        "times = []\n"
        "for path in sys.argv[2:]:\n"
        "    t = time.perf_counter(); kb.check(path); times.append(1000 * (time.perf_counter() - t))\n"
        "print(json.dumps(times))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(index), *map(str, items)], capture_output=True, text=True, env=env, cwd=ROOT
    )
    if proc.returncode != 0:
        raise SystemExit(f"warm checks failed: {proc.stderr.strip()[-600:]}")
    times = sorted(json.loads(proc.stdout.strip().splitlines()[-1]))
    return statistics.median(times), times[min(len(times) - 1, int(0.99 * len(times)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--checks", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    rows = load_rows()
    records = to_records(rows, args.records)
    held = {row["paper"] for row in rows[: args.records]}  # to_records makes its cards of these first
    fresh = [r for r in rows[::-1] if r["paper"] not in held][: args.checks]
    with tempfile.TemporaryDirectory(prefix="kbsearch-judge-cost-") as tmp:
        folder = Path(tmp)
        data = write_jsonl(folder / "records.jsonl", records)
        probes = [
            {
                "id": f"probe/{n}",
                "kind": "paper_card",
                "title": row["title"],
                "text": row["tldr_zh"],
                "date": row["date"],
            }
            for n, row in enumerate(fresh)
        ]
        items = one_item_files(folder, "item", probes)
        # A second card of a paper the index holds (its title, another part of its
        # summary): the same item, so the judge also reads claims and passages.
        again = [
            {
                "id": f"again/{n}",
                "kind": "paper_card",
                "title": row["title"],
                "text": row["result_zh"] or row["method_zh"] or row["tldr_zh"],
                "date": row["date"],
            }
            for n, row in enumerate(rows[: args.checks])
        ]
        seen = one_item_files(folder, "again", again)
        default, alone = "USE + e5 judge (default)", "USE alone (no judge)"
        setups = {default: None, alone: models_alone(folder)}
        ingest: dict[str, list[tuple[float, float]]] = {name: [] for name in [*setups, INLINE]}
        fills: list[FillTimes] = []
        for repeat in range(args.repeats):
            # The default ingest leaves the judge's vectors to the fill it starts; the bench waits
            # for the fill to end (watched, not a child of the bench) before timing the next process.
            envs = {
                default: environ(None, folder / f"tokens-{repeat}", FILL),
                alone: environ(setups[alone], folder / f"tokens-alone-{repeat}"),
                INLINE: environ(None, folder / f"tokens-inline-{repeat}"),  # the fill off: the judge inline
            }
            for number, (name, env) in enumerate(envs.items()):
                index = folder / f"index-{number}-{repeat}"
                started = time.perf_counter()
                seconds, cpu, _ = timed_cpu([*KBSEARCH, "ingest", str(data), "--index", str(index)], env)
                ingest[name].append((seconds, cpu))
                if name == default:
                    fills.append(FillWatch(index, JUDGE, started).join())
        raw, raw_cpu = raw_use(data, folder, envs[alone])
        envs = {default: environ(None, folder / "tokens-0", FILL), alone: envs[alone]}
        inline, inline_cpu = min(ingest[INLINE])
        print(f"{len(records)} records, {args.checks} checked items; best of {args.repeats} ingests\n")
        print("| | USE + e5 judge (default) | USE alone | ratio |\n|---|---|---|---|")
        (judged, judged_cpu), (alone_s, alone_cpu) = (min(ingest[n]) for n in setups)
        rows_out = [("ingest, whole process (s)", judged, alone_s)]
        rows_out.append(("ingest, ms per record", 1000 * judged / len(records), 1000 * alone_s / len(records)))
        # Both cores busy the whole ingest: the wall time cannot fall below half the CPU time.
        rows_out.append(("ingest, CPU s (every thread)", judged_cpu, alone_cpu))
        rows_out.append(("ingest with the judge inline (the fill off), whole process (s)", inline, alone_s))
        rows_out.append(("ingest with the judge inline (the fill off), CPU s", inline_cpu, alone_cpu))
        fill = min(fills, key=lambda f: f.judge_done)
        rows_out.append(("the fill: every judge vector written, from the ingest's start (s)", fill.judge_done, 0.0))
        rows_out.append(("the fill: its CPU s by then (one thread, nice 10)", fill.judge_cpu, 0.0))
        rows_out.append(("the fill: to its end, token vectors too (s)", fill.ended, 0.0))
        rows_out.append(("the fill: its CPU s to its end", fill.cpu, 0.0))
        indexes = {name: folder / f"index-{number}-0" for number, name in enumerate(setups)}
        reingest = [
            timed([*KBSEARCH, "ingest", str(data), "--index", str(indexes[n]), "--json"], envs[n]) for n in setups
        ]
        embedded = [json.loads(out) for _, out in reingest]
        assert all(e["embedded"] == e["judge_embedded"] == e["judge_deferred"] == 0 for e in embedded), embedded
        rows_out.append(("re-ingest, nothing embedded (s)", reingest[0][0], reingest[1][0]))
        sizes = [size_mb(indexes[n]) for n in setups]
        rows_out.append(("kb.sqlite (MB)", sizes[0][0], sizes[1][0]))
        rows_out.append(("vectors.faiss (MB)", sizes[0][1], sizes[1][1]))
        warm = [warm_checks(indexes[n], items, e) for n, e in envs.items()]
        rows_out.append(("warm check p50, the fill done (ms)", warm[0][0], warm[1][0]))
        rows_out.append(("warm check p99, the fill done (ms)", warm[0][1], warm[1][1]))
        during = while_filling(folder, data, records, environ(None, folder / "tokens-during", FILL), items)
        rows_out.append(("warm check p50 while a fill runs, and on the same index after it (ms)", during[0], during[4]))
        repeats = [warm_checks(indexes[n], seen, e) for n, e in envs.items()]
        rows_out.append(("warm check p50, an item seen before (ms)", repeats[0][0], repeats[1][0]))
        rows_out.append(("warm check p99, an item seen before (ms)", repeats[0][1], repeats[1][1]))
        cold = [timed([*KBSEARCH, "check", str(items[0]), "--index", str(indexes[n])], e)[0] for n, e in envs.items()]
        rows_out.append(("cold check, whole process (s)", cold[0], cold[1]))
        for label, a, b in rows_out:
            ratio = f"{a / b:.2f}x" if b else ""
            print(f"| {label} | {a:.1f} | {b:.1f} | {ratio} |")
        print(
            f"\nWhile the fill ran: a second ingest of {during[2]} new records waited {during[1]:.3f} s for the"
            f" writer lock; the fill was {'still' if during[3] else 'no longer'} running when the checks ended.\n"
        )
        print("| against raw USE, one text per record | seconds | CPU s | records/s against raw |\n|---|---|---|---|")
        closing = [
            ("raw USE, one text per record (load + encode)", raw, raw_cpu),
            ("ingest, USE alone", alone_s, alone_cpu),
            ("ingest, default (the judge's vectors left to the fill)", judged, judged_cpu),
            ("ingest, the judge inline (KBSEARCH_TOKEN_FILL=0)", inline, inline_cpu),
            ("ingest + the fill until every judge vector is written", fill.judge_done, judged_cpu + fill.judge_cpu),
        ]
        for label, seconds, cpu in closing:
            print(f"| {label} | {seconds:.1f} | {cpu:.1f} | {raw / seconds:.2f}x |")


def while_filling(
    folder: Path, data: Path, records: list[dict], env: dict[str, str], items: list[Path]
) -> tuple[float, float, int, bool, float]:
    """A fresh default ingest, then while its fill runs: a user's next ingest (a few new records)
    and warm checks. (check p50 ms, that ingest's wait for the writer lock, its records, whether
    the fill still ran when the checks ended, check p50 ms on the same index once the fill is done)."""
    index = folder / "index-during"
    started = time.perf_counter()
    timed_cpu([*KBSEARCH, "ingest", str(data), "--index", str(index)], env)
    watch = FillWatch(index, JUDGE, started)
    extra = [{**r, "id": f"extra/{n}"} for n, r in enumerate(records[:20])]
    more = write_jsonl(folder / "extra.jsonl", extra)
    _, out = timed([*KBSEARCH, "ingest", str(more), "--index", str(index), "--json"], env)
    p50, _ = warm_checks(index, items, env)
    still = watch.running()
    watch.join()
    after, _ = warm_checks(index, items, env)
    return p50, json.loads(out)["waited"], len(extra), still, after


if __name__ == "__main__":
    main()
