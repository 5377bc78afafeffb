"""How much of a record the judge should read: raw e5 quality and token counts at caps.

    python bench/judge_cap.py [--caps 512,128]

Two measurements, for the judge's input (a record's whole text, which e5
cuts at 512 tokens):

1. Token counts of the team's records (examples/ and, when beside the
   project, ../shared/seeds): how many records a cap would cut and what
   share of the judge's tokens it would save.
2. Quality on a long view of the dev streams (summary + method + result, so
   that texts run past 128 tokens): raw e5's best-threshold F1 (cosine to the
   nearest visible record, threshold chosen with the truth) across languages
   (feed g's English against feed a's Chinese, dated 2025-06-01 on) and
   within feed a, each cap cutting the tokens of both sides.

e5 runs as kbsearch runs it (``OnnxE5``, the int8 graph and its tokenizer),
with the tokenizer's truncation set to each cap. Every text is encoded afresh for each cap.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from eval_dedupe import best_f1  # noqa: E402

from kbsearch.embed.e5_onnx import OnnxE5, onnx_folder  # noqa: E402
from kbsearch.parse import iter_input_files, parse_file  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval" / "domain"
SEEDS = ROOT.parent / "shared" / "seeds"


def zh(row: dict) -> str:
    parts = (row.get("title_zh"), row["tldr_zh"], row.get("method_zh"), row.get("result_zh"))
    return "\n".join(p for p in parts if p)


def en(row: dict) -> str:
    return "\n".join(p for p in (row["tldr_en"], row.get("method_en"), row.get("result_en")) if p)


def raw_f1(known: list[dict], checked: list[dict], kv: np.ndarray, cv: np.ndarray, strict: bool) -> float:
    dates = np.array([r["date"] for r in known])
    first: dict[str, str] = {}
    for r in known:
        first[r["paper"]] = min(first.get(r["paper"], "9999"), r["date"])
    scores, truth = [], []
    for i, row in enumerate(checked):
        visible = dates < row["date"] if strict else dates <= row["date"]
        if not visible.any():
            continue
        scores.append(float((kv[visible] @ cv[i]).max()))
        day = first.get(row["paper"])
        truth.append(day is not None and (day < row["date"] if strict else day <= row["date"]))
    return best_f1(np.array(scores), np.array(truth))


def token_counts(session: OnnxE5) -> None:
    folders = [ROOT / "examples"] + ([SEEDS] if SEEDS.is_dir() else [])
    texts = [r.embed_text() for p in iter_input_files(folders) for r in parse_file(p).records]
    counts = np.array([min(512, len(e.ids)) for e in session.tokenizer.encode_batch(["query: " + t for t in texts])])
    print(f"{len(texts)} records of {', '.join(f.name for f in folders)}: judge input tokens p50 "
          f"{np.median(counts):.0f}, p90 {np.percentile(counts, 90):.0f}, max {counts.max()}")  # fmt: skip
    print("| cap | records cut | judge tokens saved |\n|---|---|---|")
    for cap in (384, 256, 192, 128):
        saved = 1 - np.minimum(counts, cap).sum() / counts.sum()
        print(f"| {cap} | {(counts > cap).mean():.0%} | {saved:.1%} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--caps", default="512,128")
    args = parser.parse_args()
    session = OnnxE5("multilingual-e5-small", onnx_folder(True), prompt="query: ")
    token_counts(session)
    feed_a = [json.loads(line) for line in (EVAL / "arxiv-digest-dev.jsonl").open(encoding="utf-8")]
    feed_a = [r for r in feed_a if r["date"] >= "2025-06-01"]
    feed_g = [json.loads(line) for line in (EVAL / "arxiv-digest-en-dev.jsonl").open(encoding="utf-8")]
    lengths = [len(e.ids) for e in session.tokenizer.encode_batch(["query: " + t for t in map(en, feed_g)])]
    print(f"\nlong view: feed g English texts {np.median(lengths):.0f} tokens at the median, {max(lengths)} at most")
    print("| cap | across languages, raw e5 best F1 | within a feed | seconds |\n|---|---|---|---|")
    for cap in (int(c) for c in args.caps.split(",")):
        session.tokenizer.enable_truncation(max_length=cap)
        started = time.perf_counter()
        encode: Callable[[list[str]], np.ndarray] = session.encode
        ka, kg = encode([zh(r) for r in feed_a]), encode([en(r) for r in feed_g])
        across, within = raw_f1(feed_a, feed_g, ka, kg, False), raw_f1(feed_a, feed_a, ka, ka, True)
        print(f"| {cap} | {across:.3f} | {within:.3f} | {time.perf_counter() - started:.0f} |", flush=True)


if __name__ == "__main__":
    main()
