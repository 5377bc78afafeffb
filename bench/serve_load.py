"""`kbsearch serve` under load, on loopback only, bounded in time.

    python bench/serve_load.py [--clients 16] [--seconds 60] [--kills 5]

1. Builds (once, then reuses) a 10,000-record index of the dev arXiv digest
   stream with the default model, under /work/cache/serve (``--cache``), and
   copies it to a scratch folder for each run.
2. Starts ``kbsearch serve --http 127.0.0.1:0`` on the copy. ``--clients``
   concurrent clients send requests for ``--seconds``: 80% searches (English
   title fragments and Chinese summary fragments, as typed), 20% checks (one
   increment: a paper's Chinese title and summary). Another client accepts one
   new record a second (write token), and half-way a CLI ``kbsearch ingest``
   of ``--ingest`` new records runs against the same index.
3. Reports requests per second, p50/p99 per kind, errors (any answer but
   200), that every accepted and ingested record is there afterwards, and
   ``kbsearch doctor``.
4. SIGKILLs a fresh server ``--kills`` times, each during an accept, and
   shows that the index opens consistent (``doctor`` healthy, every record
   whole) and that the killed accept is all there or not there at all.
5. Times whole ``kbsearch search --server`` processes beside ``python -c
   pass`` and a local ``kbsearch search`` (which loads the model).

    python bench/serve_load.py --lone 100 [--filled N --fill-copy DIR]

One client on one kept-alive connection (``httpx.Client``, as an agent or a
pipeline holds one): after ten warm-up checks, that many first checks of
known papers' increments one after the other, then half as many searches;
p50/p90 of each. This is issue 26's single-client row.

    python bench/serve_load.py --rate 20 [--seconds 60]

Open loop instead: requests arrive at random (exponential gaps) at
``--rate`` a second, 80% searches and 20% checks, whether or not earlier
ones were answered; no accepts, ingest or kills. Before the server starts,
another process opens the same index and runs the same kinds of request
in-process, so that the server's CPU per request is printed beside the same
work's cost without a server (``--in-process`` requests of each kind).

Nothing is fitted here: the queries and check items are drawn with a fixed
seed from the stream the index was built from (searches and checks of known
papers, as the writers make them). Every address is 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchlib import wait_for_line  # noqa: E402
from dev_stream import build_index, load_rows, pick_queries  # noqa: E402

from kbsearch.models import resolve_model  # noqa: E402

CACHE = Path("/work/cache/serve")
RECORDS = 10_000


@dataclass
class Sample:
    kind: str
    seconds: float
    status: int
    at: float


@dataclass
class Load:
    samples: list[Sample] = field(default_factory=list)
    accepted: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    ingest: dict[str, Any] = field(default_factory=dict)
    server_cpu: float = 0.0
    """CPU seconds the server process used during the run (all its threads)."""


def kbsearch(*argv: str) -> list[str]:
    return [sys.executable, "-m", "kbsearch", *argv]


def environment() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's environment writes .pyc files
    return env


class Server:
    """``kbsearch serve --http 127.0.0.1:0`` in its own process."""

    workers = 1
    """``--workers`` of every server the bench starts (its own option of the same name)."""

    def __init__(self, index: Path) -> None:
        self.index = index
        self.process = subprocess.Popen(
            kbsearch("serve", "--http", "127.0.0.1:0", "--index", str(index), "--workers", str(self.workers)),
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            env=environment(),
        )
        self.log: list[str] = []
        self.url = self._wait()
        threading.Thread(target=self._drain, daemon=True).start()
        self.read = (index / "serve-read.token").read_text().strip()
        self.write = (index / "serve-write.token").read_text().strip()

    def _wait(self) -> str:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line)
            found = re.search(r"listening on (http://127\.0\.0\.1:\d+) ", line)
            if found:
                return found.group(1)
        raise SystemExit("the server did not start:\n" + "".join(self.log))

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()


def check_items(rows: list[dict[str, Any]], count: int, seed: int = 11) -> list[str]:
    """One increment each: a paper's Chinese (else English) title and its summary."""
    rng = random.Random(seed)
    return [f"{r['title_zh'] or r['title']}\n{r['tldr_zh']}" for r in rng.sample(rows, count)]


def new_records(rows: list[dict[str, Any]], prefix: str, count: int, offset: int) -> list[dict[str, Any]]:
    """Records the index does not hold: a paper's English result summary under a new id."""
    picked = rows[offset : offset + count]
    return [
        {"id": f"{prefix}/{n}", "title": f"{prefix} {n}: {r['title']}", "text": r["result_zh"] or r["tldr_zh"]}
        for n, r in enumerate(picked)
    ]


def draw(rng: random.Random, queries: list[str], checks: list[str]) -> tuple[str, dict[str, str]]:
    """The next request: a search four times in five, else a check of one increment."""
    if rng.random() < 0.8:
        return "search", {"query": rng.choice(queries)}
    return "check", {"text": rng.choice(checks)}


async def client(
    http: httpx.AsyncClient, load: Load, rng: random.Random, queries: list[str], checks: list[str], until: float
) -> None:
    while time.perf_counter() < until:
        await one_request(http, load, *draw(rng, queries, checks))


async def one_request(http: httpx.AsyncClient, load: Load, kind: str, body: dict[str, str]) -> None:
    """Send one request and record its time and status (any answer but 200 also as an error)."""
    started = time.perf_counter()
    try:
        answer = await http.post(f"/api/{kind}", json=body)
        status = answer.status_code
    except httpx.HTTPError as err:
        status = 0
        load.errors.append(f"{kind}: {err!r}")
    load.samples.append(Sample(kind, time.perf_counter() - started, status, started))
    if status not in (0, 200):
        load.errors.append(f"{kind}: {status} {answer.text[:200]}")


async def open_loop(server: Server, args: argparse.Namespace, rows: list[dict[str, Any]]) -> Load:
    """Requests at random moments, ``args.rate`` a second on average, each sent
    when its moment comes whether or not the earlier ones were answered."""
    load, rng = Load(), random.Random(3)
    queries, checks = pick_queries(rows, 400), check_items(rows, 200)
    limits = httpx.Limits(max_connections=256)
    started = time.perf_counter()
    until, due = started + args.seconds, started
    cpu_before = cpu_seconds(server.process.pid)
    async with httpx.AsyncClient(
        base_url=server.url, headers=_auth(server.read), limits=limits, timeout=httpx.Timeout(120.0)
    ) as http:
        sent: list[asyncio.Task[None]] = []
        while (due := due + rng.expovariate(args.rate)) < until:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            kind, body = draw(rng, queries, checks)
            sent.append(asyncio.create_task(one_request(http, load, kind, body)))
        await asyncio.gather(*sent)
    load.elapsed = time.perf_counter() - started
    load.server_cpu = cpu_seconds(server.process.pid) - cpu_before
    return load


IN_PROCESS = """
import json, random, sys, time
sys.path[:0] = [sys.argv[1], sys.argv[1] + '/bench']
from dev_stream import load_rows, pick_queries
from serve_load import check_items
from kbsearch.kb import KnowledgeBase
rows, count = load_rows(), int(sys.argv[3])
queries, checks, rng = pick_queries(rows, 400), check_items(rows, 200), random.Random(3)
cpu = {'search': [], 'check': []}
with KnowledgeBase.open(sys.argv[2]) as kb:
    kb.check_text('kbsearch serve warm-up'); kb.search('warm up')
    for _ in range(count):
        for kind in ('search', 'check'):
            started = time.process_time()
            kb.search(rng.choice(queries)) if kind == 'search' else kb.check_text(rng.choice(checks))
            cpu[kind].append(time.process_time() - started)
print(json.dumps(cpu))
"""


def lone_client(index: Path, args: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    """One client, one connection, one request at a time: what a lone agent waits."""
    empty_token_folder(args.cache, index, args.filled, args.fill_copy)
    checks, queries = check_items(rows, 200), pick_queries(rows, 400)
    server = Server(index)
    try:
        if importlib.util.find_spec("kbsearch.serve.warming"):  # as a lone agent meets it seconds after the start
            print("server:", wait_for_line(server.log, "records built ahead for checks"))
        with httpx.Client(base_url=server.url, headers=_auth(server.read), timeout=120) as http:
            for text in ["kbsearch serve warm-up", *checks[:10]]:
                http.post("/api/check", json={"text": text}).raise_for_status()
            timed = {"check": [{"text": t} for t in checks[10 : 10 + args.lone]]}
            timed["search"] = [{"query": q} for q in queries[: max(1, args.lone // 2)]]
            for kind, bodies in timed.items():
                seconds = []
                for body in bodies:
                    started = time.perf_counter()
                    http.post(f"/api/{kind}", json=body).raise_for_status()
                    seconds.append(time.perf_counter() - started)
                p50, p90 = (1000 * percentile(seconds, q) for q in (0.5, 0.9))
                print(f"one client, one connection: {kind} x{len(seconds)}, p50 {p50:.1f} ms, p90 {p90:.1f} ms")
    finally:
        server.stop()


def in_process_cpu(index: Path, count: int) -> dict[str, list[float]]:
    """CPU seconds per search and per check when a process runs them itself
    (warm, the same draws as the server's clients), from another process."""
    done = subprocess.run(
        [sys.executable, "-c", IN_PROCESS, str(ROOT), str(index), str(count)],
        capture_output=True, text=True, env=environment(), check=True,
    )  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def report_open_loop(load: Load, args: argparse.Namespace, alone: dict[str, list[float]]) -> None:
    elapsed = load.elapsed
    print(f"\nopen loop, offered {args.rate:g} requests/s: {len(load.samples)} sent in {elapsed:.1f}s")
    print(f"{'kind':8} {'count':>6} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'errors':>6}")
    for kind in ("search", "check", "all"):
        mine = [s for s in load.samples if kind in ("all", s.kind)]
        times = [1000 * s.seconds for s in mine if s.status == 200]
        errors = sum(s.status != 200 for s in mine)
        print(f"{kind:8} {len(mine):6d} {percentile(times, 0.5):8.1f} {percentile(times, 0.9):8.1f} "
              f"{percentile(times, 0.99):8.1f} {errors:6d}")  # fmt: skip
    answered = sum(s.status == 200 for s in load.samples)
    print(f"answered {answered} of {len(load.samples)} in {elapsed:.1f}s (until the last answer): "
          f"{answered / elapsed:.1f} a second")  # fmt: skip
    for line in load.errors[:3]:
        print("   ", line)
    mix = {k: sum(s.kind == k for s in load.samples) / max(1, len(load.samples)) for k in ("search", "check")}
    mean = {k: 1000 * statistics.fmean(v) for k, v in alone.items()}
    expected = sum(mix[k] * mean[k] for k in mix)
    served = 1000 * load.server_cpu / max(1, len(load.samples))
    print(f"in-process CPU per request (another process, {len(alone['search'])} of each, mean): "
          f"search {mean['search']:.1f} ms, check {mean['check']:.1f} ms; this mix {expected:.1f} ms")  # fmt: skip
    print(f"the server: {load.server_cpu:.1f} CPU s for {len(load.samples)} requests, {served:.1f} ms a request: "
          f"{served / expected:.2f}x the same work in-process")  # fmt: skip


async def acceptor(http: httpx.AsyncClient, load: Load, records: list[dict[str, Any]], until: float) -> None:
    for n, record in enumerate(records):
        started = time.perf_counter()
        if started >= until:
            break
        body = {"text": json.dumps(record, ensure_ascii=False), "path": f"accept-{n}.jsonl", "accept": True}
        try:
            answer = await http.post("/api/check", json=body)
            status = answer.status_code
        except httpx.HTTPError as err:
            status = 0
            load.errors.append(f"accept: {err!r}")
        load.samples.append(Sample("accept", time.perf_counter() - started, status, started))
        if status == 200:
            load.accepted += answer.json()["accepted"]
        elif status:
            load.errors.append(f"accept: {status} {answer.text[:200]}")
        await asyncio.sleep(max(0.0, started + 1.0 - time.perf_counter()))


def ingest_midway(index: Path, feed: Path, delay: float, out: dict[str, Any]) -> None:
    time.sleep(delay)
    started = time.perf_counter()
    done = subprocess.run(
        kbsearch("ingest", str(feed), "--index", str(index), "--json"),
        capture_output=True,
        text=True,
        env=environment(),
    )
    out.update(code=done.returncode, seconds=time.perf_counter() - started, at=delay, stderr=done.stderr[-500:])
    if done.returncode == 0:
        out["report"] = json.loads(done.stdout)


async def drive(server: Server, args: argparse.Namespace, rows: list[dict[str, Any]], feed: Path) -> Load:
    load = Load()
    queries = pick_queries(rows, 400)
    checks = check_items(rows, 200)
    accepts = new_records(rows, "load/accept", args.seconds + 5, offset=0)
    limits = httpx.Limits(max_connections=args.clients + 2)
    timeout = httpx.Timeout(60.0)
    started = time.perf_counter()
    until = started + args.seconds
    ingest: dict[str, Any] = {}
    writer = threading.Thread(target=ingest_midway, args=(server.index, feed, args.seconds / 2, ingest))
    cpu_before = cpu_seconds(server.process.pid)
    async with (
        httpx.AsyncClient(base_url=server.url, headers=_auth(server.read), limits=limits, timeout=timeout) as http,
        httpx.AsyncClient(base_url=server.url, headers=_auth(server.write), timeout=timeout) as writes,
    ):
        writer.start()
        tasks = [client(http, load, random.Random(n), queries, checks, until) for n in range(args.clients)]
        await asyncio.gather(*tasks, acceptor(writes, load, accepts, until))
    load.elapsed = time.perf_counter() - started
    load.server_cpu = cpu_seconds(server.process.pid) - cpu_before
    await asyncio.to_thread(writer.join)
    load.ingest = ingest
    return load


def cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of a process and its children (a server's
    workers, ``--workers``), from /proc."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if stat.parent.name == str(pid) or fields[1] == str(pid):
                total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def report_load(load: Load, server: Server, feed_ids: list[str]) -> None:
    elapsed = load.elapsed
    ok = [s for s in load.samples if s.status == 200]
    print(f"\n{len(load.samples)} requests in {elapsed:.1f}s: {len(load.samples) / elapsed:.1f} requests/s")
    print(f"{'kind':8} {'count':>6} {'per s':>6} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6}")
    for kind in ("search", "check", "accept"):
        mine = [s for s in load.samples if s.kind == kind]
        times = [1000 * s.seconds for s in mine if s.status == 200]
        errors = sum(s.status != 200 for s in mine)
        print(
            f"{kind:8} {len(mine):6d} {len(mine) / elapsed:6.1f} {percentile(times, 0.5):8.1f} "
            f"{percentile(times, 0.99):8.1f} {errors:6d}"
        )
    print(f"errors: {len(load.samples) - len(ok)} of {len(load.samples)}")
    share, per_request = load.server_cpu / elapsed, 1000 * load.server_cpu / max(1, len(load.samples))
    print(f"the server used {load.server_cpu:.1f} CPU s in {elapsed:.1f} s ({share:.2f} of one core): "
          f"{per_request:.0f} CPU ms per request, all kinds together")  # fmt: skip
    for line in load.errors[:10]:
        print("   ", line)
    ingest = load.ingest
    added = ingest.get("report", {}).get("added")
    print(f"CLI ingest at {ingest.get('at', 0):.0f}s: exit {ingest.get('code')}, {ingest.get('seconds', 0):.1f}s, "
          f"{added} added")  # fmt: skip
    if ingest.get("code"):
        print("   ", ingest.get("stderr"))
    # Every accepted and ingested record, asked of the server that took them.
    wanted = load.accepted + feed_ids
    missing = []
    with httpx.Client(base_url=server.url, headers=_auth(server.read), timeout=60) as http:
        for record_id in wanted:
            if http.post("/api/show", json={"id": record_id}).status_code != 200:
                missing.append(record_id)
        stats = http.post("/api/stats", json={}).json()
    print(f"accepted {len(load.accepted)}, ingested {len(feed_ids)}: {len(wanted) - len(missing)} present, "
          f"{len(missing)} missing {missing[:5]}; the server counts {stats['records']} records, "
          f"generation {stats['generation']}")  # fmt: skip


def doctor(index: Path) -> tuple[bool, str]:
    """(healthy, its verdict line and every problem it found with the fix it names)."""
    done = subprocess.run(kbsearch("doctor", "--index", str(index)), capture_output=True, text=True, env=environment())
    lines = (done.stdout + done.stderr).strip().splitlines()
    found = [line.strip() for line in lines if line.startswith("PROBLEM") or line.strip().startswith("fix:")]
    return done.returncode == 0, "; ".join([lines[-1], *found])


def opens_consistent(index: Path) -> str:
    """Open the index as the next process would: every passage has its vector in the index it searches."""
    code = (
        "import sys; from kbsearch.kb import KnowledgeBase\n"
        "with KnowledgeBase.open(sys.argv[1]) as kb:\n"
        "    s = kb.stats(); n = kb.store.vector_index.count\n"
        "    print(s.records, s.passages, n, 'consistent' if n == s.passages else 'INCONSISTENT')"
    )
    done = subprocess.run([sys.executable, "-c", code, str(index)], capture_output=True, text=True, env=environment())
    records, passages, vectors, verdict = done.stdout.split()
    return f"opens {verdict}: {records} records, {passages} passages, {vectors} vectors searched"


def kill_during_accepts(base: Path, scratch: Path, rows: list[dict[str, Any]], kills: int) -> None:
    """SIGKILL the server while it accepts, then open the index as the next process would."""
    rng = random.Random(5)  # the kill's moment within an accept
    print(f"\nSIGKILL during an accept, {kills} times:")
    for trial in range(kills):
        index = _fresh_copy(base, scratch / "kill")
        server = Server(index)
        record = new_records(rows, f"load/kill{trial}", 1, offset=1000 + trial)[0]
        body = {"text": json.dumps(record, ensure_ascii=False), "path": f"kill-{trial}.jsonl", "accept": True}
        # One accept first, timed: the kill then lands at a random moment of a
        # second one's span, from its check to past its commit and cache write.
        warm = new_records(rows, f"load/warm{trial}", 1, offset=2000 + trial)[0]
        started = time.perf_counter()
        _post_accept(server, {**body, "text": json.dumps(warm, ensure_ascii=False), "path": f"warm-{trial}.jsonl"})
        delay = rng.uniform(0.3, 1.2) * (time.perf_counter() - started)
        sender = threading.Thread(target=_post_accept, args=(server, body), daemon=True)
        sender.start()
        time.sleep(delay)
        server.kill()
        sender.join(5)
        healthy, verdict = doctor(index)
        present = _has(index, record["id"])
        print(f"  kill {trial + 1} after {delay * 1000:.0f} ms: the accepted record is "
              f"{'there' if present else 'absent'}; doctor: {verdict}; {opens_consistent(index)}")  # fmt: skip
        if not healthy:
            subprocess.run(kbsearch("reindex", "--index", str(index)), capture_output=True, env=environment())
            print(f"    after the fix doctor names ('kbsearch reindex'): {doctor(index)[1]}")


def _post_accept(server: Server, body: dict[str, Any]) -> None:
    with contextlib.suppress(httpx.HTTPError):  # the server was killed mid-answer
        httpx.post(f"{server.url}/api/check", json=body, headers=_auth(server.write), timeout=60)


def _has(index: Path, record_id: str) -> bool:
    done = subprocess.run(
        kbsearch("show", record_id, "--index", str(index), "--json"), capture_output=True, text=True, env=environment()
    )
    return done.returncode == 0


def client_processes(server: Server, index: Path, repeats: int) -> None:
    """Whole processes: kbsearch search --server, beside python -c pass and a local search."""
    env = {**environment(), "KBSEARCH_TOKEN": server.read}
    rows: dict[str, list[float]] = {"python -c pass": [], "kbsearch search --server": [], "kbsearch search (local)": []}
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "kbsearch search --server": kbsearch("search", "频域 KV cache 压缩", "--server", server.url),
        "kbsearch search (local)": kbsearch("search", "频域 KV cache 压缩", "--index", str(index)),
    }
    for command in commands.values():
        subprocess.run(command, capture_output=True, env=env)  # writes the .pyc files; not timed
    for _ in range(repeats):
        for name, command in commands.items():
            started = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, env=env)
            rows[name].append(time.perf_counter() - started)
            if done.returncode != 0:
                print(f"  {name} failed: {done.stderr.strip()}")
    print(f"\nwhole processes, median of {repeats} (interleaved):")
    for name, times in rows.items():
        print(f"  {name:28} {statistics.median(times):6.3f} s   (min {min(times):.3f})")


def _fresh_copy(base: Path, target: Path) -> Path:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(base, target, ignore=shutil.ignore_patterns("serve-*.token", "records.jsonl"))
    return target


def machine() -> str:
    load = os.getloadavg()
    top = subprocess.run(["ps", "-eo", "pcpu,comm", "--sort=-pcpu"], capture_output=True, text=True).stdout
    busiest = ", ".join(" ".join(line.split()) for line in top.splitlines()[1:6])
    return f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}; busiest: {busiest}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--ingest", type=int, default=50, help="records the CLI ingests half-way")
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=10, help="whole client processes timed")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--workers", type=int, default=1, help="the server's --workers")
    parser.add_argument("--kills-only", action="store_true", help="only the SIGKILL trials")
    parser.add_argument("--rate", type=float, help="open loop: this many requests a second, arriving at random")
    parser.add_argument("--in-process", type=int, default=40, help="open loop: in-process requests of each kind")
    parser.add_argument(
        "--lone", type=int, help="one client: this many checks one after the other, then half as many searches"
    )
    parser.add_argument(
        "--filled", type=int, default=0, help="open loop, --lone: the fill after an ingest kept this many records"
    )
    parser.add_argument(
        "--fill-copy",
        type=Path,
        help="open loop, --lone: take the fill from this folder when an earlier run saved it there, else save it there "
        "(the fill of 10,000 records takes 13 minutes; the same index and --filled only)",
    )
    args = parser.parse_args()
    Server.workers = args.workers
    spec = resolve_model(None)
    base = args.cache / f"index-{RECORDS // 1000}k"
    build_index(base, spec, RECORDS)
    rows = load_rows()
    if args.kills_only:
        kill_during_accepts(base, args.cache, rows, args.kills)
        return
    index = _fresh_copy(base, args.cache / "run")
    feed_records = new_records(rows, "load/ingest", args.ingest, offset=500)
    feed = args.cache / "ingest.jsonl"
    feed.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in feed_records), encoding="utf-8")
    print(f"before: {machine()}")
    if args.rate:
        run_open_loop(index, args, rows)
        return
    if args.lone:
        lone_client(index, args, rows)
        return
    empty_token_folder(args.cache)
    server = Server(index)
    try:
        load = asyncio.run(drive(server, args, rows, feed))
        print(f"during (at the end): {machine()}")
        report_load(load, server, [r["id"] for r in feed_records])
        client_processes(server, index, args.repeats)
    finally:
        server.stop()
    healthy, verdict = doctor(index)
    print(f"doctor after the run: {verdict} ({'healthy' if healthy else 'PROBLEM'})")
    kill_during_accepts(base, args.cache, rows, args.kills)


def empty_token_folder(cache: Path, index: Path | None = None, filled: int = 0, saved: Path | None = None) -> None:
    """The judge's token vectors kept on disk start empty, as on a new machine
    (the user's own cache would hold what earlier runs aligned); with ``filled``,
    holding what the fill after an ingest puts there for that many newest
    records (``kbsearch/kb/token_fill.py``, run here to its end). With ``saved``,
    a copy of an earlier run's fill is taken from there, or this fill is saved there."""
    tokens = cache / "run-tokens"
    os.environ["KBSEARCH_TOKEN_CACHE"] = str(tokens)  # environment() passes it on
    shutil.rmtree(tokens, ignore_errors=True)
    if filled and saved is not None and saved.is_dir():
        shutil.copytree(saved, tokens)
        print(f"fill of at most {filled} newest records: copied from {saved} (an earlier run's fill)")
        return
    if filled and index is not None:
        env = {**os.environ, "KBSEARCH_TOKEN_FILL": str(filled), "PYTHONPATH": str(ROOT)}
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "kbsearch.kb.token_fill", str(index)], env=env, check=True)
        spent = time.perf_counter() - began
        size = sum(f.stat().st_size for f in tokens.rglob("*") if f.is_file()) / 1e6
        print(f"fill of at most {filled} newest records: {spent:.1f} s (nice 10, one thread), {size:.0f} MB on disk")
        if saved is not None:
            shutil.copytree(tokens, saved)


def run_open_loop(index: Path, args: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    """The in-process run first, then the server, each with an empty token-vector
    folder: every record's first alignment is paid in both."""
    empty_token_folder(args.cache, index, args.filled, args.fill_copy)
    alone = in_process_cpu(index, args.in_process)
    empty_token_folder(args.cache, index, args.filled, args.fill_copy)
    server = Server(index)
    try:
        load = asyncio.run(open_loop(server, args, rows))
        print(f"during (at the end): {machine()}")
        report_open_loop(load, args, alone)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
