"""The dev arXiv digest stream as a bench index: records, queries and the build.

Read at run time from ../shared/eval/domain/arxiv-digest-dev.jsonl, never
copied into the project. Shared by bench/tui_latency.py and bench/serve_load.py.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path

from kbsearch.kb import KnowledgeBase
from kbsearch.models import ModelSpec

ROOT = Path(__file__).resolve().parents[1]
STREAM = ROOT.parent / "shared" / "eval" / "domain" / "arxiv-digest-dev.jsonl"
PUNCTUATION = " ，。、；：！？（）“”《》,.;:!?()\"'"


def load_rows() -> list[dict]:
    if not STREAM.is_file():
        sys.exit(f"the dev stream is missing: {STREAM}")
    with STREAM.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def to_records(rows: list[dict], count: int) -> list[dict]:
    """Canonical JSONL records: each paper as a card (title + Chinese TLDR), then as a
    digest increment (method and result as claims), then as an English abstract,
    until ``count`` records exist."""
    views = [
        lambda r: {"kind": "paper_card", "title": r["title"], "text": r["tldr_zh"]},
        lambda r: {
            "kind": "increment",
            "title": r["title_zh"] or r["title"],
            "text": r["tldr_zh"],
            "claims": [c for c in (r["method_zh"], r["result_zh"]) if c],
        },
        lambda r: {"kind": "increment", "title": r["title"], "text": r["abstract_en"][:1500]},
    ]
    out: list[dict] = []
    for number, view in enumerate(views):
        for i, row in enumerate(rows):
            if len(out) == count:
                return out
            out.append(
                {
                    "id": f"bench/{number}/{i}",
                    "date": row["date"],
                    "instance": f"feed-{row['feed']}",
                    "topic": "arxiv",
                    **view(row),
                }
            )
    return out


def build_index(folder: Path, spec: ModelSpec, count: int) -> None:
    """Ingest through the facade, like ``kbsearch ingest`` would; skipped when already built."""
    if (folder / "kb.sqlite").exists():
        kb = KnowledgeBase.open(folder, spec.name)
        try:
            if kb.stats().records == count:
                return
        finally:
            kb.close()
    folder.mkdir(parents=True, exist_ok=True)
    feed = folder / "records.jsonl"  # the index's own input, outside the project
    with feed.open("w", encoding="utf-8") as handle:
        for record in to_records(load_rows(), count):
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    started = time.perf_counter()
    os.environ["KBSEARCH_TOKEN_FILL"] = "0"  # no fill left running beside what is measured next
    kb = KnowledgeBase.open(folder, spec.name, create=True)
    try:
        report = kb.ingest([feed])
    finally:
        kb.close()
    print(
        f"built {report.records} records ({report.embedded} texts embedded) in {time.perf_counter() - started:.0f}s",
        file=sys.stderr,
    )


def pick_queries(rows: list[dict], count: int, seed: int = 7) -> list[str]:
    """Half English title fragments, half Chinese summary fragments, as someone would type them."""
    rng = random.Random(seed)
    queries = []
    for number in range(count):
        row = rng.choice(rows)
        if number % 2 == 0:
            words = row["title"].split()
            start = rng.randrange(max(1, len(words) - 3))
            queries.append(" ".join(words[start : start + rng.randint(2, 4)]))
        else:
            text = row["tldr_zh"]
            start = rng.randrange(max(1, len(text) - 12))
            queries.append(text[start : start + rng.randint(6, 10)].strip(PUNCTUATION))
    return [q for q in queries if q]
