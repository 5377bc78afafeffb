"""Helpers the benches share: child processes that report their own peak memory,
percentiles, JSONL inputs."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PEAK = "peak-rss-kb "
MARK = "bench-mark "


def peak_kb() -> int:
    """This process's peak resident memory since it started (VmHWM). Not
    ru_maxrss: Linux carries that across fork and exec, so a child would
    report at least the memory its parent had when it forked."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def report_peak_rss() -> None:
    """Each measured child says its own peak: the parent's RUSAGE_CHILDREN is a
    maximum over all children, not the one just finished."""
    print(f"{PEAK}{peak_kb()}", file=sys.stderr)


def mark(name: str, **values: Any) -> None:
    """A measurement taken inside a child, read back by ``run_child``."""
    print(MARK + json.dumps({"name": name, **values}), file=sys.stderr, flush=True)


def peak_mb() -> int:
    return peak_kb() // 1024


def run_child(args: list[str], env: dict[str, str] | None = None) -> tuple[float, int, str, dict[str, dict]]:
    """(wall seconds, peak RSS in MB, stdout, marks by name) of one process."""
    started = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=env)
    seconds = time.perf_counter() - started
    lines = proc.stderr.strip().splitlines()
    # Marks written at exit (atexit) may follow the peak line.
    peaks = [line for line in lines if line.startswith(PEAK)]
    if proc.returncode not in (0, 1) or not peaks:
        raise SystemExit(f"{' '.join(args[1:6])} failed ({proc.returncode}): {proc.stderr.strip()[-1500:]}")
    marks = {}
    for line in lines:
        if line.startswith(MARK):
            found = json.loads(line[len(MARK) :])
            marks[found.pop("name")] = found
    return seconds, int(peaks[-1][len(PEAK) :]) // 1024, proc.stdout, marks


def percentile(values: list[float], q: float) -> float:
    """The value at rank ``q`` of the values measured (NaN, a run that gave none, left out); NaN when none."""
    ordered = sorted(v for v in values if v == v)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def one_item_files(folder: Path, name: str, items: list[dict]) -> list[Path]:
    """One JSONL file per item (``NAME-N.jsonl``): what a one-item ``check`` reads."""
    return [write_jsonl(folder / f"{name}-{n}.jsonl", [item]) for n, item in enumerate(items)]


def wait_for_line(log: list[str], words: str, timeout: float = 600.0) -> str:
    """The first line of ``log`` (a child's stderr, read into it by another thread) holding
    ``words``, once there, with the seconds waited; after ``timeout``, a line saying so."""
    began = time.perf_counter()
    while time.perf_counter() - began < timeout:
        if found := next((line.strip() for line in log if words in line), None):
            return f"{found} (waited {time.perf_counter() - began:.1f} s)"
        time.sleep(0.5)
    return f"no line with {words!r} after {timeout:.0f} s"
