"""What a check pays to know whether a title name is rare, beside a full scan.

    python bench/name_rarity.py [--records N] [--names K]

``check`` calls a coined name heading two titles (TriAttention, C²KV) strong
evidence only when few titles in the store carry it. The obvious way counts
the names of every title once per process: a scan of all titles through
``name_tokens``. kbsearch asks the FTS index instead, per name and only for
the names two records actually share, how many titles hold it, counting no
further than the limit.

Builds a store of N records whose titles are made of coined names drawn from
a vocabulary (a few common, most rare; a stand-in encoder, since only titles
matter here), then times, in one process and interleaved:

- baseline: read every title and count its names;
- kbsearch: ``NameHolders.count`` for K names, half common, half rare (whole-word
  holders among the index's substring hits).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbsearch.dedupe.features import NAME_COUNT_CAP  # noqa: E402
from kbsearch.dedupe.names import NameHolders  # noqa: E402
from kbsearch.ingest import ingest_records  # noqa: E402
from kbsearch.records import Kind, Record  # noqa: E402
from kbsearch.store import ChangeSet, Store  # noqa: E402
from kbsearch.text.textsim import name_tokens  # noqa: E402

DIM = 16


class StandIn:
    """Random unit vectors: the store needs vectors, this bench does not read them."""

    model_id = "stand-in"
    dim = DIM

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = self.rng.standard_normal((len(texts), DIM)).astype(np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def vocabulary(size: int) -> list[str]:
    rng = random.Random(1)
    syllables = ["Tri", "Ring", "Fold", "Shard", "Flash", "Page", "Spec", "Quant", "Radix", "Tide"]
    suffixes = ["KV", "Attn", "Serve", "Cache", "Net", "Draft", "Prefill", "LM"]
    # the trailing letter keeps one name from being the prefix of another (Tri7Q, Tri71Q)
    return [f"{rng.choice(syllables)}{rng.choice(suffixes)}{i}Q" for i in range(size)]


def build(folder: Path, count: int) -> tuple[Store, list[str], list[str]]:
    names = vocabulary(count)
    common = names[:20]
    rng = random.Random(2)
    records = []
    for i in range(count):
        # a fifth of the titles lead with a common name, the rest with their own
        head = rng.choice(common) if i % 5 == 0 else names[i]
        records.append(
            Record(id=f"r{i}", kind=Kind.increment, title=f"{head}: a note on serving, part {i}", text=f"body {i}")
        )
    store = Store.open(folder, create=True)
    encoder = StandIn()
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    return store, [n.lower() for n in common], [n.lower() for n in names[20:]]


def old_way(store: Store) -> dict[str, int]:
    counts: dict[str, int] = {}
    for (title,) in store.db.execute("SELECT title FROM records"):
        for name in name_tokens(title):
            counts[name] = counts.get(name, 0) + 1
    return counts


RARE = 5
"""A name held by at most this many records counts as rare here (the gate
weighs names by their count; ``DedupeConfig.rare_name_records`` is 5)."""


def new_way(store: Store, asked: list[str]) -> list[bool]:
    holders = NameHolders(store, NAME_COUNT_CAP)
    return [holders.count(name) <= RARE for name in asked]


def old_judgement(store: Store, asked: list[str]) -> list[bool]:
    counts = old_way(store)
    return [counts.get(name, 0) <= RARE for name in asked]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--names", type=int, default=10, help="names looked up per check")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        store, common, rare = build(Path(folder), args.records)
        print(f"{args.records:,} titled records built in {time.perf_counter() - started:.0f}s")
        rng = random.Random(3)
        timings: dict[str, list[float]] = {"old": [], "new": []}
        for _ in range(args.repeats):
            asked = rng.sample(common, args.names // 2) + rng.sample(rare, args.names - args.names // 2)
            began = time.perf_counter()
            old_way(store)
            timings["old"].append(time.perf_counter() - began)
            began = time.perf_counter()
            new_way(store, asked)
            timings["new"].append(time.perf_counter() - began)
        asked = common + rng.sample(rare, 100)
        agree = sum(a == b for a, b in zip(new_way(store, asked), old_judgement(store, asked), strict=True))
        store.close()
    old, new = statistics.median(timings["old"]), statistics.median(timings["new"])
    print(f"| way | median of {args.repeats} | ratio |")
    print("|---|---|---|")
    print(f"| baseline: count the names of every title | {old * 1000:.1f} ms | 1.00x |")
    print(f"| kbsearch: rare_name_test + {args.names} lookups | {new * 1000:.1f} ms | **{old / new:.0f}x faster** |")
    print(f"both ways judge {agree} of {len(asked)} names alike (all 20 common names and 100 rare ones)")


if __name__ == "__main__":
    main()
