"""kbsearch's audit pair finding against SemHash's self-deduplication, on one set of vectors.

    python bench/audit_semhash.py [--records 100000] [--threshold 0.70] [--seed 7]

Needs ``semhash`` (bench only: ``make bench-deps``). The vectors: every paper
of the dev arXiv digest stream (../shared/eval/domain/arxiv-digest-dev.jsonl,
read at run time, never copied into the project) in three views, as kbsearch
ingests them (a card: English title + Chinese TLDR; an increment: Chinese
title + TLDR + method + result; an English abstract), encoded once with the
default model and cached under /tmp. The three views of one paper are real
same-item pairs across languages. Seeded noisy copies of those vectors fill
the set up to ``--records``: a tenth are near copies (cosine 0.85-0.99 to
their source, the known duplicates), the rest distant ones (cosine about 0.5,
records on a related subject that no threshold here should pair).
The table gives the time of each (SemHash: building its index and
self_deduplicate; kbsearch: ``neighbour_pairs``, the core of ``audit``, with
the same cap of 100 neighbours per record that SemHash queries first), the
pairs each found at or above the cosine threshold, their agreement and the
peak RSS of each, run in its own process so neither inherits the other's
memory.

What is compared: the unordered pairs of records whose cosine is at or above
the threshold. kbsearch's search is exact; SemHash's is an approximate usearch
(HNSW) graph, so it can miss pairs, and its threshold test is strict (>).
SemHash's self_deduplicate then keeps a greedy selection (each removed record
points to one kept record); the full pair set it found is the neighbour list
it selected from. ``audit`` itself adds rules on top of these pairs (lexical
overlap, shared names, arXiv ids); they are not part of this comparison.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbsearch.records import Kind, Record  # noqa: E402

STREAM = ROOT.parent / "shared" / "eval" / "domain" / "arxiv-digest-dev.jsonl"
CACHE = Path("/tmp/kbsearch-bench/audit-semhash")
MODEL = "use-multilingual-v3"
NEAR_SHARE = 0.10
CAP = 100  # SemHash's first per-query neighbour cap (semhash.utils.NEIGHBORS_PER_QUERY)


# One cosine threshold for both tools: the value the gate used before its
# learned decision (a fixed cut keeps the timing comparison like for like).
CROSS_LINGUAL_THRESHOLD = 0.70


def stream_records() -> list[Record]:
    """Each paper of the dev stream as a card, an increment and an English abstract."""
    if not STREAM.is_file():
        sys.exit(f"the dev stream is missing: {STREAM}")
    rows = [json.loads(line) for line in STREAM.open(encoding="utf-8")]
    records = []
    for i, r in enumerate(rows):
        records += [
            Record(id=f"card/{i}", kind=Kind.paper_card, title=r["title"], text=r["tldr_zh"]),
            Record(
                id=f"inc/{i}",
                kind=Kind.increment,
                title=r["title_zh"] or r["title"],
                text="\n".join(c for c in (r["method_zh"], r["result_zh"]) if c),
            ),
            Record(id=f"abs/{i}", kind=Kind.increment, title=r["title"], text=r["abstract_en"][:1500]),
        ]
    return records


def real_vectors() -> np.ndarray:
    """The whole-record vectors of the stream's records, encoded once and cached."""
    path = CACHE / f"{MODEL}-whole-v2.npy"
    if path.is_file():
        return np.load(path)
    from kbsearch.embed import load_encoder
    from kbsearch.models import resolve_model

    texts = [r.embed_text() for r in stream_records()]
    started = time.perf_counter()
    vectors = load_encoder(resolve_model(MODEL)).encode(texts).astype(np.float32)
    print(f"encoded {len(texts)} records in {time.perf_counter() - started:.0f} s (cached in {path})")
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def noisy_copies(sources: np.ndarray, cosines: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Unit vectors at (about) the given cosine to their source: source + orthogonal noise."""
    noise = rng.standard_normal(sources.shape).astype(np.float32)
    noise -= (noise * sources).sum(axis=1, keepdims=True) * sources
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    sines = np.sqrt(1.0 - cosines**2)[:, None]
    return (cosines[:, None] * sources + sines * noise).astype(np.float32)


def bench_vectors(count: int, seed: int) -> tuple[Path, np.ndarray]:
    """``count`` vectors (cached as .npy for the worker processes) and the known
    duplicate pairs (near copy, its source)."""
    real = real_vectors()
    path = CACHE / f"set-{count}-{seed}.npy"
    rng = np.random.default_rng(seed)
    fill = max(0, count - len(real))
    sources = rng.integers(0, len(real), fill)
    near = rng.random(fill) < NEAR_SHARE
    cosines = np.where(near, rng.uniform(0.85, 0.99, fill), 0.5).astype(np.float32)
    vectors = np.concatenate([real, noisy_copies(real[sources], cosines, rng)])[:count]
    if not path.is_file():
        np.save(path, vectors)
    copies = np.flatnonzero(near) + len(real)
    known = np.stack([sources[near], copies], axis=1)
    return path, known[known[:, 1] < count]


# -- the two workers, each run in its own process ---------------------------------


def run_kbsearch(vectors: np.ndarray, threshold: float) -> np.ndarray:
    from kbsearch.dedupe.neighbours import neighbour_pairs

    found = neighbour_pairs(vectors, CAP, threshold)
    return np.stack([found.left, found.right], axis=1)


class _NoEncoder:
    """SemHash wants an encoder; self-deduplication of given vectors never calls it."""

    def encode(self, inputs: Any, **kwargs: Any) -> np.ndarray:
        raise AssertionError("not used")


def run_semhash(vectors: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """SemHash's pairs (all neighbours at the threshold it selected from) and its
    removals (filtered record, the kept record it points to)."""
    from semhash import SemHash

    # Distinct record strings: SemHash groups equal records as exact duplicates first.
    semhash = SemHash.from_embeddings(vectors, [str(i) for i in range(len(vectors))], model=_NoEncoder())
    result = semhash.self_deduplicate(threshold=threshold)
    removals = np.array([[int(d.record), int(d.duplicate_of)] for d in result.filtered], dtype=np.int64)
    return _semhash_pairs(semhash, result, threshold), removals.reshape(-1, 2)


def _semhash_pairs(semhash: Any, result: Any, threshold: float) -> np.ndarray:
    # The neighbour lists self_deduplicate selected from (kept for its rethreshold);
    # if a SemHash version drops them, query its index again (outside the timing).
    inputs = getattr(result, "_selection_inputs", None)
    neighbours = inputs[1] if inputs else semhash.index.query_threshold(semhash.index.vectors, threshold)
    rows = [np.stack([np.full(len(ids), i), ids], axis=1) for i, (ids, _) in enumerate(neighbours) if len(ids)]
    pairs = np.concatenate(rows).astype(np.int64) if rows else np.zeros((0, 2), dtype=np.int64)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    return np.unique(np.sort(pairs, axis=1), axis=0)


def worker(tool: str, path: Path, threshold: float, out: Path) -> None:
    vectors = np.load(path)
    started = time.perf_counter()
    if tool == "kbsearch":
        pairs, removals = run_kbsearch(vectors, threshold), np.zeros((0, 2), dtype=np.int64)
        seconds = time.perf_counter() - started
    else:
        pairs, removals = run_semhash(vectors, threshold)
        seconds = time.perf_counter() - started
    np.savez(out, pairs=pairs, removals=removals)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"seconds": seconds, "rss_mb": rss_mb}))


# -- the comparison ---------------------------------------------------------------


def run_tool(tool: str, path: Path, threshold: float) -> dict[str, Any]:
    out = path.with_name(f"{tool}-{path.stem}-{threshold}.npz")
    command = [
        sys.executable,
        __file__,
        "--worker",
        tool,
        "--vectors",
        str(path),
        "--threshold",
        str(threshold),
        "--out",
        str(out),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{tool} failed:\n{done.stderr[-2000:]}")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    with np.load(out) as data:
        report["pairs"] = {tuple(p) for p in data["pairs"].tolist()}
        report["removals"] = data["removals"]
    return report


def compare_tools(
    vectors: np.ndarray, known: np.ndarray, threshold: float, kb: dict[str, Any], sh: dict[str, Any]
) -> None:
    ours, theirs = kb["pairs"], sh["pairs"]
    both = ours & theirs
    union = ours | theirs
    print(
        f"\nthreshold {threshold:.2f}, {len(vectors)} records of dim {vectors.shape[1]}, {len(known)} known near copies"
    )
    print(f"{'tool':10} {'seconds':>8} {'pairs':>9} {'peak RSS MB':>12} {'known dups found':>17}")
    for name, run in (("kbsearch", kb), ("semhash", sh)):
        recall = np.mean([tuple(sorted(p)) in run["pairs"] for p in known.tolist()]) if len(known) else 1.0
        print(f"{name:10} {run['seconds']:8.1f} {len(run['pairs']):9d} {run['rss_mb']:12.0f} {recall:17.4f}")
    print(f"time ratio kbsearch/semhash: {kb['seconds'] / sh['seconds']:.2f}")
    print(
        f"pair agreement (Jaccard, |both| / |either|): {len(both) / max(1, len(union)):.4f} "
        f"({len(both)} both, {len(ours - theirs)} kbsearch only, {len(theirs - ours)} semhash only)"
    )
    _explain(vectors, threshold, ours - theirs, theirs - ours)
    removals = {tuple(sorted(p)) for p in sh["removals"].tolist()}
    print(
        f"SemHash's removals (record → kept record): {len(removals)}; "
        f"in kbsearch's pairs: {len(removals & ours) / max(1, len(removals)):.4f}"
    )


def _explain(
    vectors: np.ndarray, threshold: float, only_ours: set[tuple[int, int]], only_theirs: set[tuple[int, int]]
) -> None:
    """Why the pair sets differ, from the exact cosine of each differing pair."""
    for label, pairs in (("kbsearch only", only_ours), ("semhash only", only_theirs)):
        if not pairs:
            continue
        left, right = np.array(sorted(pairs)).T
        cosine = (vectors[left].astype(np.float64) * vectors[right]).sum(axis=1)
        at_edge = int((np.abs(cosine - threshold) < 1e-4).sum())
        print(
            f"  {label}: {len(pairs)} pairs, exact cosine {cosine.min():.4f}..{cosine.max():.4f}, "
            f"{at_edge} within 1e-4 of the threshold, {int((cosine < threshold).sum())} below it"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument(
        "--threshold",
        type=float,
        default=None,
        help=f"cosine threshold (default {CROSS_LINGUAL_THRESHOLD}; the gate itself decides with a learned score)",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--worker", choices=["kbsearch", "semhash"], help=argparse.SUPPRESS)
    parser.add_argument("--vectors", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.threshold is None:
        args.threshold = CROSS_LINGUAL_THRESHOLD
    if args.worker:
        worker(args.worker, args.vectors, args.threshold, args.out)
        return
    path, known = bench_vectors(args.records, args.seed)
    kb = run_tool("kbsearch", path, args.threshold)
    sh = run_tool("semhash", path, args.threshold)
    compare_tools(np.load(path), known, args.threshold, kb, sh)


if __name__ == "__main__":
    main()
