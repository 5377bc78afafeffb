"""`kbsearch serve` under one abusive client, beside 4 searching clients; loopback only.

    python bench/serve_abuse.py [--records 2000] [--clients 4] [--seconds 20]

1. Builds (once, then reuses) an index of ``--records`` records of the dev
   arXiv digest stream with the default model, under /work/cache/serve, and
   serves a copy of it (``kbsearch serve --http 127.0.0.1:0``, its defaults).
2. ``--clients`` clients search for ``--seconds`` (queries drawn with a fixed
   seed from the stream, as typed): search p50 and p99 without abuse.
3. The same, while another client with the read token sends the issue's
   abusive check (a briefing of 200,000 要点 lines, 10.7 MB) again and again,
   and then a 900 KB query: each answer's status and time, and search p99.
4. The same, while that client sends the largest check the limits allow
   (10 increments of 50 claims), again and again: how a heavy but legal
   check weighs on searches.

Server memory (VmRSS) is sampled every 0.1 s: the last sample before each
phase against the largest during it. Targets (issue 24): search p99 during
the abuse at most 3x its p99 without; the abusive request refused or
stopped within its budget; server RSS during at most 1.2x before.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchlib import percentile  # noqa: E402
from dev_stream import build_index, load_rows, pick_queries  # noqa: E402
from serve_load import CACHE, Server, _auth, _fresh_copy, machine  # noqa: E402

from kbsearch.models import resolve_model  # noqa: E402

BRIEFING_HEAD = """\
# inference · E1 预消化简报(2026-09-21)

执行： Stephen

"""
INCREMENT = """\
## 增量 {n}：TriAttention 合入 TensorRT-LLM（⭐⭐⭐⭐）

- 来源：https://github.com/WeianMao/triattention
- 要点：
{claims}- 可信度：高

"""


def briefing(increments: int, claims: int) -> str:
    """A briefing of ``increments`` increments of ``claims`` 要点 lines each."""
    lines = "".join(f"  - 第 {c} 条：TriAttention 把 KV cache 压缩 {c} 倍，省 {c % 97} GB\n" for c in range(claims))
    return BRIEFING_HEAD + "".join(INCREMENT.format(n=n, claims=lines) for n in range(1, increments + 1))


@dataclass
class Phase:
    name: str
    searches: list[float] = field(default_factory=list)
    search_errors: int = 0
    other: list[tuple[str, int, float, str]] = field(default_factory=list)
    """(what, status, seconds, the error line) of each request of the other client."""
    rss_before: int = 0
    rss_peak: int = 0


class RssSampler:
    """The server's resident memory (kB), every 0.1 s, in another thread."""

    def __init__(self, pid: int) -> None:
        self.pid, self.last, self.peak = pid, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            self.last = rss_kb(self.pid)
            self.peak = max(self.peak, self.last)

    def start_phase(self) -> int:
        self.last = self.peak = rss_kb(self.pid)
        return self.last

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def searcher(http: httpx.AsyncClient, phase: Phase, queries: list[str], seed: int, until: float) -> None:
    rng = random.Random(seed)
    while time.perf_counter() < until:
        started = time.perf_counter()
        try:
            answer = await http.post("/api/search", json={"query": rng.choice(queries)})
            ok = answer.status_code == 200
        except httpx.HTTPError:
            ok = False
        if ok:
            phase.searches.append(time.perf_counter() - started)
        else:
            phase.search_errors += 1


async def sender(http: httpx.AsyncClient, phase: Phase, bodies: list[tuple[str, str, bytes]], until: float) -> None:
    """Send each body in turn, again and again, until ``until``; the first of each always."""
    rounds = 0
    while rounds == 0 or time.perf_counter() < until:
        for what, path, body in bodies:
            started = time.perf_counter()
            try:
                answer = await http.post(path, content=body, headers={"Content-Type": "application/json"})
                status, error = answer.status_code, answer.json().get("error", "") if answer.status_code != 200 else ""
            except httpx.HTTPError as err:
                status, error = 0, repr(err)
            phase.other.append((what, status, time.perf_counter() - started, error))
        rounds += 1


async def run_phase(
    server: Server, sampler: RssSampler, name: str, args: argparse.Namespace, queries: list[str], bodies: list
) -> Phase:
    phase = Phase(name)
    await asyncio.sleep(2.0)  # what the last phase left settles
    phase.rss_before = sampler.start_phase()
    until = time.perf_counter() + args.seconds
    limits = httpx.Limits(max_connections=args.clients + 2)
    async with httpx.AsyncClient(
        base_url=server.url, headers=_auth(server.read), timeout=httpx.Timeout(120.0), limits=limits
    ) as http:
        tasks = [searcher(http, phase, queries, n, until) for n in range(args.clients)]
        if bodies:
            tasks.append(sender(http, phase, bodies, until))
        await asyncio.gather(*tasks)
    phase.rss_peak = sampler.peak
    return phase


def report(phases: list[Phase]) -> None:
    base = phases[0]
    base_p99 = percentile(base.searches, 0.99)
    print(f"\n{'phase':38} {'searches':>8} {'errors':>6} {'p50 ms':>7} {'p99 ms':>7} {'p99 x':>6} "
          f"{'RSS before MB':>13} {'RSS peak MB':>11} {'x':>5}")  # fmt: skip
    for phase in phases:
        p50, p99 = percentile(phase.searches, 0.5), percentile(phase.searches, 0.99)
        print(f"{phase.name:38} {len(phase.searches):8d} {phase.search_errors:6d} {1000 * p50:7.0f} "
              f"{1000 * p99:7.0f} {p99 / base_p99:6.2f} {phase.rss_before / 1024:13.0f} "
              f"{phase.rss_peak / 1024:11.0f} {phase.rss_peak / max(1, phase.rss_before):5.2f}")  # fmt: skip
    for phase in phases[1:]:
        print(f"\n{phase.name}: the other client's requests")
        for what in dict.fromkeys(o[0] for o in phase.other):
            mine = [o for o in phase.other if o[0] == what]
            statuses = sorted({o[1] for o in mine})
            times = [o[2] for o in mine]
            median = 1000 * percentile(times, 0.5)
            print(f"  {what}: {len(mine)} sent, status {statuses}, answered in median {median:.0f} ms, "
                  f"max {1000 * max(times):.0f} ms")  # fmt: skip
            if mine[0][3]:
                print(f"    {mine[0][3]}")
    abuse = phases[1]
    p99x = percentile(abuse.searches, 0.99) / base_p99
    refused = all(o[1] in (413, 503) for o in abuse.other)
    slowest = max(o[2] for o in abuse.other)
    rss_x = abuse.rss_peak / max(1, abuse.rss_before)
    print("\ntargets:")
    print(f"  search p99 during the abuse / without: {p99x:.2f} (target <= 3): {'met' if p99x <= 3 else 'MISSED'}")
    print(f"  the abusive requests refused (413) or stopped (503): {'yes' if refused else 'NO'}, "
          f"the slowest answered in {1000 * slowest:.0f} ms (budget 60,000 ms)")  # fmt: skip
    print(f"  server RSS during the abuse / before: {rss_x:.2f} (target <= 1.2): {'met' if rss_x <= 1.2 else 'MISSED'}")


async def drive(server: Server, args: argparse.Namespace, queries: list[str]) -> list[Phase]:
    abuse = briefing(1, 200_000)
    huge_query = "KV cache 压缩 " * 75_000
    largest = briefing(10, 49)  # the parser reads each 可信度 line as a claim too: 50 an increment
    print(f"abusive check: {len(abuse.encode()) / 1e6:.1f} MB; huge query: {len(huge_query.encode()) / 1e3:.0f} KB; "
          f"largest allowed check: {len(largest.encode()) / 1e3:.0f} KB")  # fmt: skip
    encode = lambda body: json.dumps(body, ensure_ascii=False).encode()  # noqa: E731
    path = "inbox/stephen/2026-09-21-inference-e1prep.md"
    abusive = [
        ("200,000-claim check", "/api/check", encode({"text": abuse, "path": path})),
        ("900 KB query", "/api/search", encode({"query": huge_query})),
    ]
    legal = [("largest allowed check", "/api/check", encode({"text": largest, "path": path}))]
    sampler = RssSampler(server.process.pid)
    try:
        phases = [await run_phase(server, sampler, "without abuse", args, queries, [])]
        phases.append(await run_phase(server, sampler, "during the abuse (again and again)", args, queries, abusive))
        phases.append(await run_phase(server, sampler, "during the largest allowed checks", args, queries, legal))
    finally:
        sampler.stop()
    return phases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=20, help="each phase's length")
    parser.add_argument("--cache", type=Path, default=CACHE)
    args = parser.parse_args()
    spec = resolve_model(None)
    base = args.cache / f"index-{args.records}"
    build_index(base, spec, args.records)
    queries = pick_queries(load_rows(), 400)
    index = _fresh_copy(base, args.cache / "abuse-run")
    print(f"before: {machine()}")
    server = Server(index)
    try:
        phases = asyncio.run(drive(server, args, queries))
        print(f"after: {machine()}")
        report(phases)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
