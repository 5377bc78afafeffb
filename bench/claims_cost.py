"""What deciding claims with ``claim_said`` costs check: the shipped config beside
the same config without it (the judge's cosine decision alone), side by side.
``--set`` measures another part of the claims' path the same way.

    python bench/claims_cost.py [--records 1000] [--checks 40] [--set FIELD=JSON]

``--set key_point_candidates=0``: what the key points' searches for candidates cost.

One index of ``--records`` dev-stream records (cards, digest increments with
their claims, English abstracts; bench/dev_stream.py) is built with the
default models.txt (USE with its e5 judge). The checked items are shaped like
the team's increments: a TLDR with the paper's method and result as two claims.
Half are papers the index does not hold (NEW: no same-item record, so neither
claim decision reads the judge), half are papers it holds, written by the
digest's English side (a repeat across languages: both decisions read every
passage of the same-item records). Two config files differ only in
``claim_said``: the shipped one (a claim is known when the form or the cosine
decision says so) and a copy with it set to null. Then, for each config in a
process of its own (the judge's passage vectors and the token vectors a process
keeps would otherwise serve the second config what the first computed), after
a check that loads the models: each item once ("first", NEW items and
repeats apart) and all again ("again"); and a cold ``kbsearch check`` process
per config on a repeat no process has checked.

The machine is shared: the ratios are the steadier figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from alignment_cost import child_cli, cold, ingested, shipped_and_changed, warm, without_disk  # noqa: E402
from benchlib import one_item_files, percentile  # noqa: E402
from dev_stream import STREAM, load_rows, to_records  # noqa: E402


def increment(row: dict, rid: str, lang: str) -> dict:
    claims = [row.get(f"{field}_{lang}") or "" for field in ("method", "result")]
    return {"id": rid, "kind": "increment", "text": row[f"tldr_{lang}"], "claims": [c for c in claims if c]}


ENGLISH = STREAM.with_name("arxiv-digest-en-dev.jsonl")  # the same papers, summarised in English


def probe_items(folder: Path, rows: list[dict], held: set[str], checks: int, day: int) -> list[Path]:
    """``checks`` increments: papers the index lacks, in Chinese, and papers it holds, in
    English; ``day`` 0 and 1 take disjoint rows."""
    half = checks // 2
    fresh = [r for r in rows[::-1] if r["paper"] not in held][day * half : (day + 1) * half]
    by_paper = {}
    for line in ENGLISH.open(encoding="utf-8"):
        row = json.loads(line)
        if row["paper"] in held and row.get("tldr_en"):
            by_paper.setdefault(row["paper"], row)
    known = list(by_paper.values())[day * half : (day + 1) * half]
    new = [increment(row, f"new/{day}/{n}", "zh") for n, row in enumerate(fresh)]
    again = [increment(row, f"again/{day}/{n}", "en") for n, row in enumerate(known)]
    return one_item_files(folder, f"new-{day}", new) + one_item_files(folder, f"again-{day}", again)


def measure(records_count: int, checks: int, changes: dict) -> tuple[int, int, dict[str, list[float]], dict]:
    english = {json.loads(line)["paper"] for line in ENGLISH.open(encoding="utf-8")}
    rows = load_rows()
    rows = [r for r in rows if r["paper"] in english] + [r for r in rows if r["paper"] not in english]
    records = to_records(rows, records_count)
    held = {row["paper"] for row in rows[:records_count]}
    with tempfile.TemporaryDirectory(prefix="kbsearch-claims-cost-") as tmp:
        folder = Path(tmp)
        items = probe_items(folder, rows, held, checks, 0)
        shipped, changed = shipped_and_changed(changes, folder)
        configs = {"shipped": shipped, ", ".join(f"{k}={json.dumps(v)}" for k, v in changes.items()): changed}
        index, warmup = ingested(folder, records)
        times = warm(index, configs, warmup, items, without_disk())
        new_item = probe_items(folder, rows, held, 2, checks)[1]  # a repeat no process has checked
        colds = {name: cold(index, path, new_item, without_disk()) for name, path in configs.items()}
    return len(records), len(items), times, colds


def print_table(records: int, items: int, times: dict[str, list[float]], colds: dict) -> None:
    shipped, changed = colds
    half = items // 2  # the items are the NEW ones, then the repeats
    rows = {
        "first, NEW items": lambda name: times[f"{name}, first"][:half],
        "first, repeats": lambda name: times[f"{name}, first"][half:],
        "again, all": lambda name: times[f"{name}, again"],
    }
    mix = "half NEW, half repeats across languages"
    print(f"{records} records; {items} increments ({mix}); ratios against {changed}\n")
    print(f"| | {shipped} | {changed} | ratio |\n|---|---|---|---|")
    for when, values in rows.items():
        for label, q in ((f"warm check p50, {when} (ms)", 0.5), (f"warm check p90, {when} (ms)", 0.9)):
            x, y = (percentile(values(name), q) for name in (shipped, changed))
            print(f"| {label} | {x:.1f} | {y:.1f} | {x / y:.2f}x |")
    for label, at in (("cold check of a repeat, whole process (s)", 0), ("cold check, peak RSS (MB)", 1)):
        x, y = (colds[name][at] for name in (shipped, changed))
        print(f"| {label} | {x:.1f} | {y:.1f} | {x / y:.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--checks", type=int, default=40)
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=JSON", help="default: claim_said=null")
    args = parser.parse_args()
    changes = dict(_change(text) for text in args.set) or {"claim_said": None}
    print_table(*measure(args.records, args.checks, changes))


def _change(text: str) -> tuple[str, object]:
    field, _, value = text.partition("=")
    return field, json.loads(value)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_cli":
        raise SystemExit(child_cli(sys.argv[2:]))
    main()
