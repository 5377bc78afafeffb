"""What running each text alone costs e5's sentence vectors, against the runs before.

    python bench/e5_runs.py [--repeats 3] [--dev 300]

A check embeds each same-item record's passages with the e5 judge in one call
(its whole text, its title, each 要点 or sentence), and an ingest embeds its
records' whole texts. This embeds, record by record, the passages of every
record of ``examples/`` (briefings whose increments carry a long text and
several 要点) and of the first ``--dev`` records of the dev digest stream (a
TLDR with its method and result; read from ../shared/eval at run time,
skipped without it), then the dev records' whole texts in one call (as an
ingest does), once in ``cheapest_runs`` padded to each run's longest (the
code before, whose int8 vectors depended on the run) and once each text
alone (now), interleaved in one process, best of ``--repeats``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


import kbsearch.embed.e5_onnx as e5_onnx  # noqa: E402
from kbsearch.embed import load_judge  # noqa: E402
from kbsearch.models import resolve_judge, resolve_model  # noqa: E402
from kbsearch.parse import iter_input_files, parse_file  # noqa: E402


def in_runs(judge: e5_onnx.OnnxE5, texts: list[str]) -> None:
    """The code before: ``cheapest_runs`` of up to ``batch``, padded to each run's longest."""
    for _rows, feed in judge._batches(judge._ids(texts)):
        judge.session.run([e5_onnx.SENTENCE], feed)


def alone(judge: e5_onnx.OnnxE5, texts: list[str]) -> None:
    judge.encode(texts)


def example_groups() -> list[list[str]]:
    files = iter_input_files([ROOT / "examples"])
    return [record.passages() for path in files for record in parse_file(path).records]


def dev_groups(count: int) -> list[list[str]]:
    try:
        from dev_stream import load_rows
    except (ImportError, OSError):
        return []
    try:
        rows = load_rows()[:count]
    except OSError:
        return []
    return [[t for t in (r.get("tldr_zh"), r.get("method_zh"), r.get("result_zh")) if t] for r in rows]


def timed(judge: e5_onnx.OnnxE5, groups: list[list[str]], how: Callable[[e5_onnx.OnnxE5, list[str]], None]) -> float:
    started = time.perf_counter()
    for group in groups:
        how(judge, group)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dev", type=int, default=300)
    args = parser.parse_args()
    spec = resolve_judge(resolve_model(None))
    assert spec is not None, "the default model names no judge"
    judge = load_judge(spec, "bench")
    assert isinstance(judge, e5_onnx.OnnxE5), "the default judge is not e5 on onnxruntime"
    print("| texts embedded | texts | runs (before), s | each alone (now), s | ratio |\n|---|---|---|---|---|")
    dev = dev_groups(args.dev)
    whole = [[" ".join(g) for g in dev]] if dev else []
    for name, groups in (
        ("examples/, record by record", example_groups()),
        (f"dev stream, first {args.dev}, record by record", dev),
        (f"dev stream, first {args.dev} whole texts, one call", whole),
    ):
        if not groups:
            print(f"| {name} | skipped: ../shared/eval is not beside the checkout | | | |")
            continue
        best = {"before": float("inf"), "now": float("inf")}
        for _ in range(args.repeats):
            best["before"] = min(best["before"], timed(judge, groups, in_runs))
            best["now"] = min(best["now"], timed(judge, groups, alone))
        texts = sum(len(g) for g in groups)
        ratio = best["now"] / best["before"]
        print(f"| {name} ({len(groups)}) | {texts} | {best['before']:.2f} | {best['now']:.2f} | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
