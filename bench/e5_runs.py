"""How e5 cuts a check's texts into session runs: fixed batches against the cheapest runs.

    python bench/e5_runs.py [--repeats 3] [--dev 300]

A check embeds each same-item record's passages with the e5 judge in one call
(its whole text, its title, each 要点 or sentence). This embeds, record by
record, the passages of every record of ``examples/`` (briefings whose
increments carry a long text and several 要点) and of the first ``--dev``
records of the dev digest stream (a TLDR with its method and result; read
from ../shared/eval at run time, skipped without it), once with the texts in
fixed batches of the model's ``batch`` padded to their longest (the code
before) and once in ``cheapest_runs`` (now), interleaved in one process,
best of ``--repeats``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402

import kbsearch.embed.e5_onnx as e5_onnx  # noqa: E402
from kbsearch.embed import load_judge  # noqa: E402
from kbsearch.models import resolve_judge, resolve_model  # noqa: E402
from kbsearch.parse import iter_input_files, parse_file  # noqa: E402

Batches = Callable[[e5_onnx.OnnxE5, list[list[int]]], Iterator[tuple[list[int], dict[str, np.ndarray]]]]


def fixed_batches(
    self: e5_onnx.OnnxE5, sequences: list[list[int]]
) -> Iterator[tuple[list[int], dict[str, np.ndarray]]]:
    """The code before: sorted by length, then ``batch`` at a time."""
    order = sorted(range(len(sequences)), key=lambda i: (len(sequences[i]), sequences[i]))
    for start in range(0, len(order), self.batch):
        rows = order[start : start + self.batch]
        ids, mask = e5_onnx.pad([sequences[i] for i in rows])
        yield rows, {"input_ids": ids, "attention_mask": mask}


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


def timed(judge: e5_onnx.OnnxE5, groups: list[list[str]], batches: Batches) -> float:
    e5_onnx.OnnxE5._batches = batches  # type: ignore[method-assign]
    started = time.perf_counter()
    for group in groups:
        judge.encode(group)
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
    cheapest: Batches = e5_onnx.OnnxE5._batches
    print("| records | texts | fixed batches (before), s | cheapest runs (now), s | ratio |\n|---|---|---|---|---|")
    for name, groups in (("examples/", example_groups()), (f"dev stream, first {args.dev}", dev_groups(args.dev))):
        if not groups:
            print(f"| {name} | skipped: ../shared/eval is not beside the checkout | | | |")
            continue
        best = {"before": float("inf"), "now": float("inf")}
        for _ in range(args.repeats):
            best["before"] = min(best["before"], timed(judge, groups, fixed_batches))
            best["now"] = min(best["now"], timed(judge, groups, cheapest))
        texts = sum(len(g) for g in groups)
        ratio = best["now"] / best["before"]
        print(f"| {name} ({len(groups)}) | {texts} | {best['before']:.2f} | {best['now']:.2f} | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
