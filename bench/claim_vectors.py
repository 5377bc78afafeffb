"""What the claim vectors buy the dedupe gate: passage version 1 (every sentence embedded) against 2.

    python bench/claim_vectors.py [--days N]

Version 2 of ``Record.passages`` embeds a text's sentences only when it is
300 characters or longer (or its claims are given), and never a sentence
that repeats the whole text or the title. This replays the dev digest
streams of ../shared/eval through ``check`` under both choices, everything
else equal, in one process with one encoder (texts are encoded once and
shared by both runs):

- within feed a, card view (English title + Chinese TLDR) and summary view
  (Chinese TLDR + method + result): each day checked against the days
  before, then accepted;
- across feeds, summary only: feed a's records of each day accepted, feed c's
  of that day checked against everything up to it.

Truth is the paper id, never shown to kbsearch. Reported: DUPLICATE and
same-item (DUPLICATE or UPDATE) precision, recall and F1, the vectors the
knowledge base holds, and the texts embedded.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbsearch.dedupe.check import Checker  # noqa: E402
from kbsearch.dedupe.config import DedupeConfig  # noqa: E402
from kbsearch.dedupe.results import Verdict  # noqa: E402
from kbsearch.embed import Encoder, load_encoder  # noqa: E402
from kbsearch.ingest import ingest_records  # noqa: E402
from kbsearch.models import resolve_model  # noqa: E402
from kbsearch.records import Kind, Record  # noqa: E402
from kbsearch.store import ChangeSet, Store  # noqa: E402
from kbsearch.textsim import sentences  # noqa: E402

DOMAIN = ROOT.parent / "shared" / "eval" / "domain"
VIEWS: dict[str, Callable[[dict], tuple[str, str]]] = {
    "card": lambda r: (r["title"], r["tldr_zh"]),
    "summary": lambda r: ("", "\n".join(x for x in (r["tldr_zh"], r["method_zh"], r["result_zh"]) if x)),
}


class Memo:
    """The real encoder, each text encoded once across both passage versions."""

    def __init__(self, encoder: Encoder) -> None:
        self.encoder, self.model_id, self.dim = encoder, encoder.model_id, encoder.dim
        self.cache: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if todo:
            self.cache.update(zip(todo, self.encoder.encode(todo), strict=True))
        return np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)


def version_1(record: Record) -> list[str]:
    """``Record.passages`` as version 1 chose: title, whole text, every claim or sentence."""
    found = sentences(record.text)
    claims = [c.strip() for c in record.claims if c.strip()] or (found if len(found) > 1 else [])
    return list(dict.fromkeys(t for t in [record.title.strip(), record.embed_text(), *claims] if t))


def load(name: str, days: int | None) -> list[dict]:
    rows = [json.loads(line) for line in (DOMAIN / name).open(encoding="utf-8")]
    keep = set(sorted({r["date"] for r in rows})[:days])
    return [r for r in rows if r["date"] in keep]


def record(row: dict, number: int, view: str) -> Record:
    title, text = VIEWS[view](row)
    return Record(
        id=f"{row['feed']}/{number}",
        kind=Kind.paper_card,
        title=title,
        text=text,
        instance=row["feed"],
        date=row["date"],
        source=f"{row['feed']}/{row['date']}",
    )


def replay(accepted: list[dict], checked: list[dict] | None, view: str, encoder: Memo) -> dict:
    """Within a feed when ``checked`` is None, else ``checked`` against ``accepted``, day by day."""
    by_day: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    for i, row in enumerate(accepted):
        by_day[row["date"]][0].append(i)
    for i, row in enumerate(checked or []):
        by_day[row["date"]][1].append(i)
    seen: set[str] = set()
    truth, verdicts = [], []
    with tempfile.TemporaryDirectory() as folder:
        store = Store.open(Path(folder), create=True)
        for day in sorted(by_day):
            mine, theirs = by_day[day]
            today = [record(accepted[i], i, view) for i in mine]
            if checked is not None:  # feed a's day goes in first, then feed c's is checked
                _accept(store, today, encoder)
                seen.update(accepted[i]["paper"] for i in mine)
                rows, items = [checked[i] for i in theirs], [record(checked[i], i, view) for i in theirs]
            else:
                rows, items = [accepted[i] for i in mine], today
            if items and store.count():
                result = Checker(store, encoder, DedupeConfig()).check(items, file=None, input_name=day)
                verdicts += [item.verdict for item in result.items]
                truth += [r["paper"] in seen for r in rows]
            if checked is None:
                _accept(store, today, encoder)
                seen.update(r["paper"] for r in rows)
        vectors = store.vector_index.count
        store.close()
    return {"truth": np.array(truth), "verdicts": verdicts, "vectors": vectors}


def _accept(store: Store, records: list[Record], encoder: Memo) -> None:
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)


def prf(predicted: np.ndarray, truth: np.ndarray) -> str:
    tp = int((predicted & truth).sum())
    p, r = tp / max(1, int(predicted.sum())), tp / max(1, int(truth.sum()))
    return f"{2 * p * r / max(p + r, 1e-9):.3f} ({p:.3f} / {r:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, help="only the first N days (quick runs)")
    args = parser.parse_args()
    encoder = Memo(load_encoder(resolve_model("use-multilingual-v3")))
    feed_a, feed_c = load("arxiv-digest-dev.jsonl", args.days), load("arxiv-digest-dev-c.jsonl", args.days)
    streams = [
        ("within feed a, card", feed_a, None, "card"),
        ("within feed a, summary", feed_a, None, "summary"),
        ("feed c against feed a, summary", feed_a, feed_c, "summary"),
    ]
    print("| stream | passages | vectors held | DUPLICATE F1 (P / R) | same item F1 (P / R) | seconds |")
    print("|---|---|---|---|---|---|")
    current = Record.passages
    for label, accepted, checked, view in streams:
        for version, choose in (("version 1, every sentence", version_1), ("version 2", current)):
            Record.passages = choose  # type: ignore[method-assign]  # the one thing that differs
            started = time.perf_counter()
            got = replay(accepted, checked, view, encoder)
            duplicate = np.array([v is Verdict.DUPLICATE for v in got["verdicts"]])
            same = np.array([v is not Verdict.NEW for v in got["verdicts"]])
            print(
                f"| {label} | {version} | {got['vectors']:,} | {prf(duplicate, got['truth'])} "
                f"| {prf(same, got['truth'])} | {time.perf_counter() - started:.0f} |"
            )
        Record.passages = current  # type: ignore[method-assign]
    print(f"\ntexts encoded in all: {len(encoder.cache):,}")


if __name__ == "__main__":
    main()
