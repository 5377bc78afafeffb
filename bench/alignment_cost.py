"""What the token alignment costs check: the shipped config beside the same
config without its aligned decision, on one index, side by side.

    python bench/alignment_cost.py [--records 1000] [--checks 40]

One index of ``--records`` dev-stream records (cards, digest increments,
English abstracts; bench/dev_stream.py) is built with the default models.txt
(USE with its e5 judge). Two config files differ only in
``aligned_same_item``: the shipped one, which ``check`` reads with the
judge's token vectors (e5's float32 token graph on onnxruntime encodes the item
and every candidate's tokens), and a copy with it set to null (the
whole-text decision alone, as before; its claims still read token vectors). Then:

- warm checks in a process per config (the judge's passage vectors a
  process keeps would otherwise serve the second config what the first
  computed), after one check that loads the models: ``--checks`` one-item
  JSONL checks of papers the index does not hold and of second summaries of
  papers it holds, first once each ("first": the process has not seen the
  item, though earlier items may share its candidates, whose token vectors
  it keeps), then all again ("again": every text's token vectors remembered);
- a cold ``kbsearch check`` process per config, its wall time and peak RSS,
  on an item no process has checked;
- the same warm checks and a cold one in a process that finds on disk the
  token vectors yesterday's process computed (``KBSEARCH_TOKEN_CACHE``):
  yesterday's process checked ``--checks`` other items (other new papers,
  other second summaries) against the same index. The other runs keep no
  token vectors on disk (``KBSEARCH_TOKEN_CACHE_ROWS=0``), as before;
- the same again in a process that finds on disk what the fill after an
  ingest computed (``kbsearch/kb/token_fill.py``, run to its end first);
- a third config with ``claim_said`` set to null as well: a check that reads
  no token vectors at all, the whole-text decision every ratio is against.

The machine is shared: the ratios are the steadier figures.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchlib import one_item_files, percentile, report_peak_rss, run_child, write_jsonl  # noqa: E402
from dev_stream import load_rows, to_records  # noqa: E402
from judge_cost import KBSEARCH, environ, timed  # noqa: E402

from kbsearch.dedupe.config_files import shipped_config_path  # noqa: E402

WARM = """
import json, sys, time
from kbsearch.kb import KnowledgeBase
index, name, config_path, warmup, items = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
kb = KnowledgeBase.open(index)
config = kb.dedupe_config(config_path)
kb.check(warmup, config=config)  # loads every model; its texts are not among the items'
times = {f"{name}, {when}": [] for when in ("first", "again")}
for when in ("first", "again"):
    for path in items:
        t = time.perf_counter(); kb.check(path, config=config)
        times[f"{name}, {when}"].append(1000 * (time.perf_counter() - t))
print(json.dumps(times))
"""


def warm(
    index: Path, configs: dict[str, Path], warmup: Path, items: list[Path], env: dict[str, str]
) -> dict[str, list[float]]:
    """Each config's checks of ``items`` in a process of its own: the judge's passage vectors
    and the token vectors a process keeps would otherwise serve one config what another computed."""
    times: dict[str, list[float]] = {}
    for name, path in configs.items():
        args = [sys.executable, "-c", WARM, str(index), name, str(path), str(warmup), *map(str, items)]
        proc = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=env)
        if proc.returncode != 0:
            raise SystemExit(f"warm checks failed: {proc.stderr.strip()[-800:]}")
        times.update(json.loads(proc.stdout.strip().splitlines()[-1]))
    return times


def shipped_and_without(field: str, folder: Path, *more: str) -> tuple[Path, Path]:
    """The shipped default config, and a copy of it in ``folder`` with ``field`` (and ``more``) set to null."""
    return shipped_and_changed(dict.fromkeys((field, *more)), folder)


def shipped_and_changed(changes: dict[str, object], folder: Path) -> tuple[Path, Path]:
    """The shipped default config, and a copy of it in ``folder`` with ``changes``."""
    shipped = shipped_config_path("use-multilingual-v3", "multilingual-e5-small")
    whole = json.loads(shipped.read_text(encoding="utf-8"))
    lacking = [field for field in changes if whole.get(field) in (None, 0)]
    if lacking:
        raise SystemExit(f"{shipped} has no {lacking[0]} to measure")
    changed = folder / f"changed-{'-'.join(changes)}.json"
    changed.write_text(json.dumps({**whole, **changes}), encoding="utf-8")
    return shipped, changed


def filled(index: Path, folder: Path) -> dict[str, str]:
    """The environment of a process that finds on disk what the fill after an ingest
    computed (``python -m kbsearch.kb.token_fill``, run here to its end)."""
    env = with_disk(folder)
    env.pop("KBSEARCH_TOKEN_FILL", None)  # the default, as after a user's ingest (python -m bench sets 0)
    subprocess.run([sys.executable, "-m", "kbsearch.kb.token_fill", str(index)], cwd=ROOT, env=env, check=True)
    return env


def ingested(folder: Path, records: list[dict]) -> tuple[Path, Path]:
    """(index, warm-up item): ``records`` ingested by a whole ``kbsearch ingest`` with the
    default models.txt, and a one-item check that loads every model."""
    index = folder / "index"
    timed(
        [*KBSEARCH, "ingest", str(write_jsonl(folder / "records.jsonl", records)), "--index", str(index)],
        without_disk(),
    )
    return index, write_jsonl(folder / "warm-up.jsonl", [{"id": "warm-up", "kind": "increment", "text": "warm-up"}])


def without_disk() -> dict[str, str]:
    """The environment of a process that keeps no token vectors on disk (as before they were)."""
    return {**environ(None), "KBSEARCH_TOKEN_CACHE_ROWS": "0"}


def with_disk(folder: Path) -> dict[str, str]:
    return {**environ(None), "KBSEARCH_TOKEN_CACHE": str(folder)}


SELF = [sys.executable, __file__]


def child_cli(args: list[str]) -> int:
    """A whole ``kbsearch`` process that reports its own peak memory (``run_child``)."""
    from kbsearch.cli import main as kbsearch_main

    try:
        return kbsearch_main(args)
    finally:
        report_peak_rss()


def cold(index: Path, config: Path, item: Path, env: dict[str, str]) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one whole ``kbsearch check`` process."""
    seconds, rss, _, _ = run_child(
        [*SELF, "_cli", "check", str(item), "--index", str(index), "--config", str(config)], env
    )
    return seconds, rss


def probe_items(folder: Path, rows: list[dict], held: set[str], checks: int, day: int) -> list[Path]:
    """``checks`` one-item increments: papers the index does not hold and second
    summaries of papers it holds; ``day`` 0 and 1 take disjoint rows."""
    half = checks // 2
    fresh = [r for r in rows[::-1] if r["paper"] not in held][day * half : (day + 1) * half]
    probes = [
        {"id": f"probe/{day}/{n}", "kind": "increment", "text": row["tldr_zh"], "date": row["date"]}
        for n, row in enumerate(fresh)
    ]
    again = [
        {"id": f"again/{day}/{n}", "kind": "increment", "text": row["result_zh"] or row["tldr_zh"], "date": row["date"]}
        for n, row in enumerate(rows[day * half : (day + 1) * half])
    ]
    return one_item_files(folder, f"item-{day}", probes) + one_item_files(folder, f"again-{day}", again)


def measure_checks(records_count: int, checks: int) -> tuple[int, int, dict[str, list[float]], dict]:
    """Build the index and check each item warm and cold: (records, items, warm times, cold runs)."""
    rows = load_rows()
    records = to_records(rows, records_count)
    held = {row["paper"] for row in rows[:records_count]}
    with tempfile.TemporaryDirectory(prefix="kbsearch-alignment-cost-") as tmp:
        folder = Path(tmp)
        yesterday = probe_items(folder, rows, held, checks, 0)
        items = probe_items(folder, rows, held, checks, 1)
        shipped, plain = shipped_and_without("aligned_same_item", folder)
        _, no_tokens = shipped_and_without("aligned_same_item", folder, "claim_said")
        configs = {"aligned (shipped)": shipped, "whole texts only": plain, NO_TOKENS: no_tokens}
        index, warmup = ingested(folder, records)
        times = warm(index, configs, warmup, items, without_disk())
        fill_env = filled(index, folder / "filled")
        times.update(warm(index, {FILLED: shipped}, warmup, items, fill_env))
        # Yesterday's process checked other items against the same index, keeping
        # the token vectors it computed; today's process reads them.
        disk = with_disk(folder / "token-vectors")
        warm(index, {"aligned (shipped)": shipped}, warmup, yesterday, disk)
        kept = warm(index, {"aligned, yesterday's token vectors on disk": shipped}, warmup, items, disk)
        times.update(kept)
        new_item = probe_items(folder, rows, held, checks, 2)[0]  # checked by no process before
        colds = {name: cold(index, path, new_item, without_disk()) for name, path in configs.items()}
        colds["aligned, yesterday's token vectors on disk"] = cold(index, shipped, new_item, disk)
        colds[FILLED] = cold(index, shipped, new_item, fill_env)
    return len(records), len(items), times, colds


NO_TOKENS = "no token vectors (whole-text decision)"
FILLED = "aligned, newest records filled after ingest"


def print_table(records: int, items: int, times: dict[str, list[float]], colds: dict) -> None:
    """Warm checks in every config, each with its ratio to the whole-text decision
    (no token vectors read at all); the cold checks of the configs that ran one."""
    names = ["aligned (shipped)", "aligned, yesterday's token vectors on disk", FILLED, "whole texts only", NO_TOKENS]
    print(f"{records} records; {items} one-item increments, each checked twice; x: against {NO_TOKENS}\n")
    print("| | " + " | ".join(names) + " |\n" + "|---" * (len(names) + 1) + "|")
    for when in ("first", "again"):
        for label, q in ((f"warm check p50, {when} (ms)", 0.5), (f"warm check p90, {when} (ms)", 0.9)):
            values = [percentile(times[f"{name}, {when}"], q) for name in names]
            cells = [f"{v:.1f} ({v / values[-1]:.2f}x)" for v in values]
            print(f"| {label} | " + " | ".join(cells) + " |")
    shown = [name for name in names if name in colds]
    print("\n| | " + " | ".join(shown) + " |\n" + "|---" * (len(shown) + 1) + "|")
    for label, at in (("cold check, whole process (s)", 0), ("cold check, peak RSS (MB)", 1)):
        print(f"| {label} | " + " | ".join(f"{colds[name][at]:.2f}" for name in shown) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--checks", type=int, default=40)
    args = parser.parse_args()
    print_table(*measure_checks(args.records, args.checks))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_cli":
        raise SystemExit(child_cli(sys.argv[2:]))
    main()
