"""Search-as-you-type latency of the TUI: last keystroke → results painted.

    python bench/tui_latency.py [--records 10000] [--queries 40] [--index DIR] [--model NAME]

Builds (once, then reuses) an index of ``--records`` records made from the dev
arXiv digest stream (../shared/eval/domain/arxiv-digest-dev.jsonl, read at run
time, never copied into the project), with the real default model. Then it
drives the app with Pilot: for each query it types the characters one key at a
time and measures from the moment the last key is sent until the results
table has been updated and repainted. It reports p50/p95 of the whole, of the
part after the debounce, and of its pieces: the query embedding, the rest of
the facade's search (FAISS + SQLite), and the UI (worker, message, table,
repaint, timer slack).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbsearch.embed import Encoder, load_encoder  # noqa: E402
from kbsearch.kb import KnowledgeBase  # noqa: E402
from kbsearch.models import ModelSpec, resolve_model  # noqa: E402
from kbsearch.search import SearchResponse  # noqa: E402
from kbsearch.store import SearchFilter  # noqa: E402
from kbsearch.tui import make_app  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from benchlib import percentile  # noqa: E402
from dev_stream import build_index, load_rows, pick_queries  # noqa: E402

from kbsearch.tui.search_screen import DEBOUNCE, SearchScreen  # noqa: E402


class TimedEncoder:
    """The real encoder, with the time of each call kept by its first text."""

    def __init__(self, inner: Encoder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.seconds: dict[str, float] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        started = time.perf_counter()
        vectors = self.inner.encode(texts)
        if texts:
            self.seconds[texts[0]] = time.perf_counter() - started
        return vectors


class TimedKb(KnowledgeBase):
    """The facade, with the wall time of each search kept by its query."""

    search_seconds: dict[str, float]

    def search(self, query: str, k: int = 10, flt: SearchFilter | None = None) -> SearchResponse:
        started = time.perf_counter()
        response = super().search(query, k, flt)
        self.search_seconds[query.strip()] = time.perf_counter() - started
        return response


async def drive(index: Path, spec: ModelSpec, queries: list[str]) -> list[dict[str, float]]:
    encoder = TimedEncoder(load_encoder(spec))
    searches: dict[str, float] = {}

    def open_kb() -> KnowledgeBase:
        # called once per gateway; both record into the same table
        kb = TimedKb(index, spec, encoder=encoder)
        kb.search_seconds = searches
        return kb

    app = make_app(index, spec.name, open_kb=open_kb)
    samples = []
    async with app.run_test(size=(120, 36)) as pilot:
        while not app.warmed:
            await pilot.pause(0.1)
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        for query in queries:
            samples.append(await one_query(pilot, screen, query, encoder, searches))
    return samples


async def one_query(
    pilot,
    screen: SearchScreen,
    query: str,
    encoder: TimedEncoder,  # type: ignore[no-untyped-def]
    searches: dict[str, float],
) -> dict[str, float]:
    box = screen.query_one("#query")
    box.value = ""  # type: ignore[attr-defined]
    await pilot.app.workers.wait_for_complete()  # a reader pauses between queries: start idle
    await pilot.pause(DEBOUNCE + 0.1)
    box.focus()
    before = set(searches)
    await pilot.press(*query[:-1])
    sent = time.perf_counter()
    await pilot.press(query[-1])
    # Pilot cannot type every character (full-width punctuation is dropped):
    # what counts is the query the box really holds.
    query = box.value.strip()  # type: ignore[attr-defined]
    deadline = sent + 120
    while screen.last_shown is None or screen.last_shown[0] != query or screen.last_shown[1] < sent:
        if time.perf_counter() > deadline or not pilot.app.is_running:
            raise SystemExit(f"no results for {query!r} after 120 s")
        await pilot.pause(0.005)
    total = screen.last_shown[1] - sent
    search = searches.get(query, float("nan"))
    encode = encoder.seconds.get(query, float("nan"))
    # A pause between two keys longer than the debounce searches a prefix; the
    # final query may then wait for it on the knowledge base's thread.
    early = [q for q in set(searches) - before if q != query and query.startswith(q)]
    return {
        "total": total,
        "after_debounce": total - DEBOUNCE,
        "encode": encode,
        "search_rest": search - encode,
        "ui": total - DEBOUNCE - search,
        "early": float(len(early)),
    }


def report(samples: list[dict[str, float]], records: int, model: str) -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"{len(samples)} queries on {records} records, model {model}, debounce {DEBOUNCE * 1000:.0f} ms, "
        f"{os.cpu_count()} CPUs, load average {load:.1f}"
    )
    print(f"{'ms':28} {'p50':>7} {'p95':>7} {'mean':>7}")
    labels = {
        "total": "last key → results painted",
        "after_debounce": "  after the debounce",
        "encode": "    embed the query",
        "search_rest": "    FAISS + SQLite + hits",
        "ui": "    worker, message, table",
    }
    early = sum(1 for s in samples if s["early"])
    print(f"({early} of {len(samples)} queries also searched a prefix while being typed)")
    for key, label in labels.items():
        values = [s[key] * 1000 for s in samples]
        clean = [v for v in values if v == v]
        print(
            f"{label:28} {percentile(values, 0.5):7.1f} {percentile(values, 0.95):7.1f} "
            f"{statistics.fmean(clean) if clean else float('nan'):7.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--model", help="model name from models.txt (default: the default)")
    parser.add_argument(
        "--index", type=Path, help="where to build or reuse the bench index (default: a folder in the system temp dir)"
    )
    args = parser.parse_args()
    spec = resolve_model(args.model)
    index = args.index or Path(tempfile.gettempdir()) / f"kbsearch-tui-bench-{spec.name}-{args.records}"
    build_index(index, spec, args.records)
    samples = asyncio.run(drive(index, spec, pick_queries(load_rows(), args.queries)))
    report(samples, args.records, spec.name)


if __name__ == "__main__":
    main()
