"""Ingest time and search latency on the bundled corpus, with the real default model.

    python bench/search_latency.py [--repeats N]

Prints, side by side with their baselines in the same run:
- model load time (the fixed cost every process pays once);
- ingest of two briefings (the seeds, else the tests' own) and of examples/ into a fresh index, and the
  raw encoder time for the same passages (the floor ingest can approach);
- re-ingest of the same files (nothing to embed);
- warm search latency p50/p99 (encode + FAISS + SQLite) against the raw
  encode of the same queries.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbsearch.embed import load_encoder  # noqa: E402
from kbsearch.kb import KnowledgeBase  # noqa: E402
from kbsearch.models import resolve_model  # noqa: E402
from kbsearch.parse import iter_input_files, parse_file  # noqa: E402

SEEDS = ROOT.parent / "shared" / "seeds"
# The seed briefings when they are beside the project, else the two the tests
# wrote in the same layouts.
BRIEFINGS = SEEDS if SEEDS.is_dir() else ROOT / "tests" / "fixtures" / "briefings"
QUERIES = [
    "frequency-domain KV cache compression",
    "频域 KV cache 压缩",
    "zero-copy KV cache offloading",
    "TGI 维护模式",
    "SGLang suffix decoding",
    "2607.08057",
    "difficulty-aware length control",
    "vLLM 与 SGLang 吞吐对比",
    "MCP design patterns",
    "prefix cache autoscaling",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def timed(action) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def passages_of(paths: list[Path]) -> list[str]:
    texts: dict[str, None] = {}
    for path in iter_input_files(paths):
        for record in parse_file(path.resolve()).records:
            texts.update(dict.fromkeys(record.passages()))
    return list(texts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    spec = resolve_model()
    started = time.perf_counter()
    encoder = load_encoder(spec)
    encoder.encode(["warm up"])
    print(f"model {spec.name}: load + first encode {time.perf_counter() - started:.2f}s\n")
    print(f"{'step':44} {'kbsearch':>10} {'baseline':>10} {'ratio':>7}")
    for label, paths in ((f"{BRIEFINGS.name} (2 briefings)", [BRIEFINGS]), ("examples/ (corpus)", [ROOT / "examples"])):
        with tempfile.TemporaryDirectory() as folder:
            kb = KnowledgeBase(Path(folder), spec, create=True, encoder=encoder)
            texts = passages_of(paths)
            raw = timed(lambda texts=texts: encoder.encode(texts))
            first = timed(lambda kb=kb, paths=paths: kb.ingest(paths))
            again = timed(lambda kb=kb, paths=paths: kb.ingest(paths))
            records = kb.stats().records
            print(
                f"{f'ingest {label}: {records} records, {len(texts)} passages':44} "
                f"{first:9.2f}s {raw:9.2f}s {raw / first:6.2f}x   (baseline: raw encode)"
            )
            print(
                f"{f're-ingest {label}, unchanged':44} {again:9.2f}s {first:9.2f}s "
                f"{first / again:6.0f}x   (baseline: first ingest)"
            )
    with tempfile.TemporaryDirectory() as folder:
        kb = KnowledgeBase(Path(folder), spec, create=True, encoder=encoder)
        kb.ingest([ROOT / "examples", SEEDS])
        search_ms, encode_ms = [], []
        for _ in range(args.repeats):
            for query in QUERIES:
                search_ms.append(1000 * timed(lambda q=query: kb.search(q, 10)))
                encode_ms.append(1000 * timed(lambda q=query: encoder.encode([q])))
        print(
            f"{'warm search p50 (k=10, ' + str(kb.stats().records) + ' records)':44} "
            f"{statistics.median(search_ms):8.1f}ms {statistics.median(encode_ms):8.1f}ms "
            f"{statistics.median(search_ms) / statistics.median(encode_ms):6.2f}x   (baseline: encode alone)"
        )
        print(f"{'warm search p99':44} {percentile(search_ms, 0.99):8.1f}ms {percentile(encode_ms, 0.99):8.1f}ms")


if __name__ == "__main__":
    main()
