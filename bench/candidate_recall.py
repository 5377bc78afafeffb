"""Candidate recall: how often retrieval brings the true earlier record, by source.

    python bench/candidate_recall.py [--streams within,cross-feed,cross-lingual]

A decision cannot find what retrieval never brings. For every checked record
of the three summary streams of bench/eval_dedupe.py whose paper was seen
before, this counts whether a record of that paper is among:

- ``USE@K``: the K nearest records by whole-text USE cosine (what ``check``
  retrieves by, ``DedupeConfig.candidates``);
- ``names``: records holding a coined name of the item (``latin_names``, as
  a whole word, three characters or more) that at most 5 visible records
  hold (``rare_name_records``);
- ``e5@K``: the K nearest by the judge's (multilingual-e5-small) whole-text
  cosine, a k-NN over the judge vectors the index stores, which ``check``
  does not run;

and their unions, with the mean number of candidates per item. Visible
records are those ``check --as-of DAY`` sees (earlier days within a feed; up
to the day across feeds). The searches are exact cosine over the cached
vectors of /work/cache/gate (the vectors ``check`` would use), not through
the store; bench/eval_dedupe.py reports check's own recall for its shipped
candidate sources beside each F1.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from cached_encoder import CachedEncoder  # noqa: E402

from kbsearch.dedupe.features import latin_names  # noqa: E402
from kbsearch.embed import load_encoder  # noqa: E402
from kbsearch.models import resolve_model  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval" / "domain"
RARE = 5
MIN_CHARS = 3
SOURCES = ("USE@20", "USE@50", "names", "e5@20", "USE@20+names", "USE@50+names", "USE@20+e5@20", "USE@20+e5@20+names")


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (EVAL / name).open(encoding="utf-8")]


def stream(name: str) -> tuple[list[dict], list[dict], str, str, bool]:
    """(known rows, checked rows, known text field, checked text field, strictly earlier days)."""
    feed_a = rows("arxiv-digest-dev.jsonl")
    if name == "within":
        return feed_a, feed_a, "tldr_zh", "tldr_zh", True
    if name == "cross-feed":
        return feed_a, rows("arxiv-digest-dev-c.jsonl"), "tldr_zh", "tldr_zh", False
    return feed_a, rows("arxiv-digest-en-dev.jsonl"), "tldr_zh", "tldr_en", False


def holders_as_words(texts: list[str]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for j, text in enumerate(texts):
        for name in latin_names(text):
            if len(name) >= MIN_CHARS and re.search(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])", text, re.I):
                found.setdefault(name, []).append(j)
    return found


def recall(name: str, encoders: dict[str, CachedEncoder]) -> dict[str, tuple[float, float]]:
    known, checked, known_field, checked_field, strict = stream(name)
    known_texts = [r[known_field] or "" for r in known]
    checked_texts = [r[checked_field] or "" for r in checked]
    vectors = {m: (e.encode(known_texts), e.encode(checked_texts)) for m, e in encoders.items()}
    dates = np.array([r["date"] for r in known])
    papers = np.array([r["paper"] for r in known])
    holders = holders_as_words(known_texts)
    hits = {s: 0 for s in SOURCES}
    sizes = {s: 0 for s in SOURCES}
    seen = 0
    for i, row in enumerate(checked):
        visible = dates < row["date"] if strict else dates <= row["date"]
        if not (visible & (papers == row["paper"])).any():
            continue  # not seen before
        seen += 1
        index = np.nonzero(visible)[0]
        near = {}
        for model, (k, c) in vectors.items():
            order = index[np.argsort(-(k[index] @ c[i]))]
            near[model] = {n: set(order[:n].tolist()) for n in (20, 50)}
        allowed = set(index.tolist())
        rare: set[int] = set()
        for found in (holders.get(n, []) for n in latin_names(checked_texts[i])):
            visible_holders = [j for j in found if j in allowed]
            if 0 < len(visible_holders) <= RARE:
                rare.update(visible_holders)
        use, e5 = near["use-multilingual-v3"], near["multilingual-e5-small"]
        sets = {
            "USE@20": use[20],
            "USE@50": use[50],
            "names": rare,
            "e5@20": e5[20],
            "USE@20+names": use[20] | rare,
            "USE@50+names": use[50] | rare,
            "USE@20+e5@20": use[20] | e5[20],
            "USE@20+e5@20+names": use[20] | e5[20] | rare,
        }
        for source, candidates in sets.items():
            hits[source] += any(papers[j] == row["paper"] for j in candidates)
            sizes[source] += len(candidates)
    return {s: (hits[s] / max(1, seen), sizes[s] / max(1, seen)) for s in SOURCES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", default="within,cross-feed,cross-lingual")
    args = parser.parse_args()
    models = ("use-multilingual-v3", "multilingual-e5-small")
    encoders = {m: CachedEncoder(load_encoder(resolve_model(m))) for m in models}
    names = [n.strip() for n in args.streams.split(",") if n.strip()]
    found = {n: recall(n, encoders) for n in names}
    print("| candidates | " + " | ".join(names) + " |\n|---|" + "---|" * len(names))
    for source in SOURCES:
        cells = [f"{found[n][source][0]:.3f} ({found[n][source][1]:.0f} per item)" for n in names]
        print(f"| {source} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
