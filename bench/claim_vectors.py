"""What the claim vectors buy the dedupe gate: passage version 1 (every sentence embedded) against 2.

    python bench/claim_vectors.py [--days N] [--cache DIR]

Version 2 of ``Record.passages`` embeds a text's sentences only when it is
300 characters or longer (or its claims are given), and never a sentence
that repeats the whole text or the title. This replays the dev digest
streams of ../shared/eval through the gate ``kbsearch check`` runs, under
both choices, everything else equal: the default models.txt line (USE, and
its judge e5 reading each record's whole text), the dedupe config shipped
for that pair (``config_for``, as the CLI loads it), ``Checker`` with the
judge, and ``ingest_records`` writing the judge's vectors as an ingest does.
Vectors are kept by text in ``--cache`` (``CachedEncoder``), so a text is
encoded once across both versions and across runs.

- within feed a, card view (English title + Chinese TLDR) and summary view
  (Chinese TLDR + method + result): each day checked against the days
  before, then accepted;
- across feeds, summary only: feed a's records of each day accepted, feed c's
  of that day checked against everything up to it;
- across languages, summary only: the same with feed g's English summaries
  (TLDR + method + result) checked against feed a's Chinese ones.

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
sys.path.insert(0, str(ROOT / "bench"))

from cached_encoder import CACHE_DIR, CachedEncoder  # noqa: E402

from kbsearch.dedupe.check import Checker  # noqa: E402
from kbsearch.dedupe.config import DedupeConfig  # noqa: E402
from kbsearch.dedupe.config_files import config_for  # noqa: E402
from kbsearch.dedupe.results import Verdict  # noqa: E402
from kbsearch.embed import Encoder, load_encoder  # noqa: E402
from kbsearch.ingest import ingest_records  # noqa: E402
from kbsearch.ingest.embedding import Judge  # noqa: E402
from kbsearch.models import resolve_judge, resolve_model  # noqa: E402
from kbsearch.records import Kind, Record  # noqa: E402
from kbsearch.store import ChangeSet, Store  # noqa: E402
from kbsearch.text.textsim import sentences  # noqa: E402

DOMAIN = ROOT.parent / "shared" / "eval" / "domain"


def _summary(row: dict) -> tuple[str, str]:
    lang = "zh" if row.get("tldr_zh") else "en"  # feed g writes English
    return "", "\n".join(x for x in (row.get(f"{f}_{lang}") for f in ("tldr", "method", "result")) if x)


VIEWS: dict[str, Callable[[dict], tuple[str, str]]] = {
    "card": lambda r: (r["title"], r["tldr_zh"]),
    "summary": _summary,
}


class Counted:
    """An encoder that counts the texts it is asked for: what a run without the cache would embed."""

    def __init__(self, inner: Encoder) -> None:
        self.inner, self.model_id, self.dim = inner, inner.model_id, inner.dim
        self.asked = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.asked += len(texts)
        return self.inner.encode(texts)


class Gate:
    """The default model line's gate as ``check`` builds it: the encoder, its
    judge and the config shipped for the pair, each encoder behind a cache."""

    def __init__(self, cache: Path) -> None:
        spec = resolve_model()
        judge_spec = resolve_judge(spec)
        self.model = spec.name
        self.encoder = Counted(CachedEncoder(load_encoder(spec), cache))
        self.judge = Counted(CachedEncoder(load_encoder(judge_spec), cache)) if judge_spec is not None else None
        self.config: DedupeConfig = config_for(spec)
        self.label = f"{spec.name}" + (f" with judge {judge_spec.name}" if judge_spec else ", no judge")

    def checker(self, store: Store) -> Checker:
        return Checker(store, self.encoder, self.config, judge=self.judge)

    def accept(self, store: Store, records: list[Record]) -> None:
        judge = self.judge
        ingest_records(
            store,
            ChangeSet(upserts=records),
            model=self.model,
            load_encoder=lambda: self.encoder,
            judge=Judge(judge.model_id, lambda: judge) if judge is not None else None,
        )

    def asked(self) -> tuple[int, int]:
        """Texts embedded so far by the model and by its judge (the cache answers repeats)."""
        return self.encoder.asked, self.judge.asked if self.judge is not None else 0


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


def replay(accepted: list[dict], checked: list[dict] | None, view: str, gate: Gate) -> dict:
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
                gate.accept(store, today)
                seen.update(accepted[i]["paper"] for i in mine)
                rows, items = [checked[i] for i in theirs], [record(checked[i], i, view) for i in theirs]
            else:
                rows, items = [accepted[i] for i in mine], today
            if items and store.count():
                result = gate.checker(store).check(items, file=None, input_name=day)
                verdicts += [item.verdict for item in result.items]
                truth += [r["paper"] in seen for r in rows]
            if checked is None:
                gate.accept(store, today)
                seen.update(r["paper"] for r in rows)
        vectors = store.vector_index.count
        store.close()
    return {"truth": np.array(truth), "verdicts": verdicts, "vectors": vectors}


def prf(predicted: np.ndarray, truth: np.ndarray) -> str:
    tp = int((predicted & truth).sum())
    p, r = tp / max(1, int(predicted.sum())), tp / max(1, int(truth.sum()))
    return f"{2 * p * r / max(p + r, 1e-9):.3f} ({p:.3f} / {r:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, help="only the first N days (quick runs)")
    parser.add_argument("--cache", type=Path, default=CACHE_DIR, help="the vector cache's folder")
    parser.add_argument("--streams", help="only these streams, by number (1-4, comma-separated)")
    args = parser.parse_args()
    gate = Gate(args.cache)
    feed_a, feed_c = load("arxiv-digest-dev.jsonl", args.days), load("arxiv-digest-dev-c.jsonl", args.days)
    feed_g = load("arxiv-digest-en-dev.jsonl", None)  # its 7 days are feed a's last 7: --days keeps none
    streams = [
        ("within feed a, card", feed_a, None, "card"),
        ("within feed a, summary", feed_a, None, "summary"),
        ("feed c against feed a, summary", feed_a, feed_c, "summary"),
        ("feed g (English) against feed a (Chinese), summary", feed_a, feed_g, "summary"),
    ]
    if args.streams:
        streams = [streams[int(n) - 1] for n in args.streams.split(",")]
    print(f"gate: {gate.label}, config fitted on: {gate.config.same_item.fitted_on}\n")
    print(
        "| stream | passages | vectors held | texts embedded (model + judge) "
        "| DUPLICATE F1 (P / R) | same item F1 (P / R) | seconds |"
    )
    print("|---|---|---|---|---|---|---|", flush=True)
    current = Record.passages
    for label, accepted, checked, view in streams:
        for version, choose in (("version 1, every sentence", version_1), ("version 2", current)):
            Record.passages = choose  # type: ignore[method-assign]  # the one thing that differs
            started, before = time.perf_counter(), gate.asked()
            got = replay(accepted, checked, view, gate)
            model, judge = (after - b for after, b in zip(gate.asked(), before, strict=True))
            duplicate = np.array([v is Verdict.DUPLICATE for v in got["verdicts"]])
            same = np.array([v is not Verdict.NEW for v in got["verdicts"]])
            print(
                f"| {label} | {version} | {got['vectors']:,} | {model:,} + {judge:,} "
                f"| {prf(duplicate, got['truth'])} | {prf(same, got['truth'])} "
                f"| {time.perf_counter() - started:.0f} |",
                flush=True,
            )
        Record.passages = current  # type: ignore[method-assign]


if __name__ == "__main__":
    main()
