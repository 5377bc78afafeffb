"""Dedupe quality: kbsearch check vs the raw model, on ../shared/eval.

    python bench/eval_dedupe.py [--model NAME] [--limit-days N] [--untuned]

1. The arXiv digest stream, replayed day by day: each day's records are
   checked against everything accepted on earlier days, then accepted. Truth
   is the `paper` field, never shown to kbsearch. Two views: the card (English
   title + Chinese TLDR) and the Chinese TLDR alone (the hard, cross-wording
   case). kbsearch runs with its default thresholds; the raw model gets the
   cosine to the nearest earlier record at its *best* threshold, chosen with
   the truth (an upper bound for the raw model).
2. Labelled pairs (LCQMC, MRPC): kbsearch's same-item rule vs raw cosine at
   its best threshold.
3. Parallel sentences: zh→en recall@1 of the dense vectors.

It also reports a threshold fitted on one set applied to another, so that
nothing here is tuned to one set only. ``--untuned`` adds two more views of
the stream that no rule or threshold was fitted on: the Chinese method
summary and the Chinese result summary alone.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbsearch.dedupe.calibrate import best_point, pair_scores, point_at, read_pairs  # noqa: E402
from kbsearch.dedupe.check import Checker  # noqa: E402
from kbsearch.dedupe.config import DedupeConfig, load_config  # noqa: E402
from kbsearch.dedupe.results import Verdict  # noqa: E402
from kbsearch.embed import Encoder, load_encoder  # noqa: E402
from kbsearch.ingest import ingest_records  # noqa: E402
from kbsearch.models import resolve_model  # noqa: E402
from kbsearch.records import Kind, Record  # noqa: E402
from kbsearch.store import ChangeSet, Store  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval"
VIEWS = {
    "card (title + zh TLDR)": lambda row: (row["title"], row["tldr_zh"]),
    "zh TLDR only": lambda row: ("", row["tldr_zh"]),
}
# Views of fields no rule was tuned on: a check that the rules carry over.
UNTUNED_VIEWS = {
    "zh method only (untuned)": lambda row: ("", row["method_zh"]),
    "zh result only (untuned)": lambda row: ("", row["result_zh"]),
}


def load_stream(limit_days: int | None) -> list[dict]:
    rows = [json.loads(line) for line in (EVAL / "domain" / "arxiv-digest-dev.jsonl").open(encoding="utf-8")]
    days = sorted({r["date"] for r in rows})[:limit_days]
    return [r for r in rows if r["date"] in set(days)]


def to_record(number: int, row: dict, view: str) -> Record:
    title, text = {**VIEWS, **UNTUNED_VIEWS}[view](row)
    return Record(
        id=f"{row['feed']}/{row['date']}/{number}",
        kind=Kind.paper_card,
        title=title,
        text=text,
        instance=row["feed"],
        date=row["date"],
    )


def prf(predicted: np.ndarray, truth: np.ndarray) -> tuple[float, float, float]:
    tp = int((predicted & truth).sum())
    precision = tp / max(1, int(predicted.sum()))
    recall = tp / max(1, int(truth.sum()))
    return precision, recall, 2 * precision * recall / max(1e-9, precision + recall)


def best_threshold(scores: np.ndarray, truth: np.ndarray) -> tuple[float, float, float, float]:
    """(threshold, precision, recall, F1) at the threshold that maximises F1."""
    order = np.argsort(-scores)
    hits = np.cumsum(truth[order])
    precision = hits / np.arange(1, len(order) + 1)
    recall = hits / max(1, truth.sum())
    f1 = 2 * precision * recall / np.maximum(precision + recall, 1e-9)
    best = int(np.argmax(f1))
    return float(scores[order][best]), float(precision[best]), float(recall[best]), float(f1[best])


def replay(rows: list[dict], view: str, encoder: Encoder, config: DedupeConfig) -> dict[str, object]:
    records = [to_record(i, row, view) for i, row in enumerate(rows)]
    seen_before: set[str] = set()
    truth, verdicts, raw = [], [], []
    by_day: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        by_day[row["date"]].append(i)
    with tempfile.TemporaryDirectory() as folder:
        store = Store.open(Path(folder), create=True)
        accepted_vectors: list[np.ndarray] = []
        for day in sorted(by_day):
            today = [records[i] for i in by_day[day]]
            if store.count():
                result = Checker(store, encoder, config).check(today, file=None, input_name=day)
                verdicts += [item.verdict for item in result.items]
            else:
                verdicts += [Verdict.NEW] * len(today)
            wholes = encoder.encode([r.embed_text() for r in today])
            raw += _nearest(wholes, accepted_vectors)
            truth += [rows[i]["paper"] in seen_before for i in by_day[day]]
            ingest_records(store, ChangeSet(upserts=today), model=encoder.model_id, load_encoder=lambda: encoder)
            accepted_vectors.append(wholes)
            seen_before.update(rows[i]["paper"] for i in by_day[day])
        store.close()
    truth_arr = np.array(truth)
    duplicate = np.array([v is Verdict.DUPLICATE for v in verdicts])
    same_item = np.array([v is not Verdict.NEW for v in verdicts])
    return {"truth": truth_arr, "duplicate": duplicate, "same_item": same_item, "raw": np.array(raw)}


def _nearest(queries: np.ndarray, earlier: list[np.ndarray]) -> list[float]:
    if not earlier:
        return [-1.0] * len(queries)
    return (queries @ np.concatenate(earlier).T).max(axis=1).tolist()


def read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def pairs_table(encoder: Encoder, config: DedupeConfig) -> None:
    """kbsearch's score at its default threshold, at a threshold fitted on the
    *other* pairs set, and the raw cosine at its own best threshold."""
    sets = {}
    for name in ("lcqmc-dev.tsv", "mrpc-val.tsv"):
        rows = read_pairs(EVAL / "pairs" / name)
        a = encoder.encode([r["a"] for r in rows])
        b = encoder.encode([r["b"] for r in rows])
        scores, _ = pair_scores(rows, encoder, config)
        sets[name] = (scores, np.sum(a * b, axis=1), np.array([r["label"] == "1" for r in rows]))
    for name, (scores, cosine, truth) in sets.items():
        other = next(n for n in sets if n != name)
        fitted = best_point(sets[other][0], sets[other][2]).threshold
        rows_out = [
            (f"kbsearch, default thr {config.same_item:.2f}", point_at(scores, truth, config.same_item)),
            (f"kbsearch, thr {fitted:.2f} fitted on {other.split('-')[0]}", point_at(scores, truth, fitted)),
            ("raw cosine, its best thr", best_point(cosine, truth)),
        ]
        for label, point in rows_out:
            label = label if "raw" not in label else f"raw cosine, best thr {point.threshold:.3f}"
            print(f"{'pairs: ' + name:34} {label:34} {point.precision:6.3f} {point.recall:6.3f} {point.f1:6.3f}")


def parallel_recall(path: Path, encoder: Encoder, zh_column: str) -> float:
    rows = read_tsv(path)
    zh = encoder.encode([r[zh_column] for r in rows])
    en = encoder.encode([r["en"] for r in rows])
    return float(np.mean(np.argmax(zh @ en.T, axis=1) == np.arange(len(rows))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="model name from models.txt (default: the default)")
    parser.add_argument("--limit-days", type=int, help="replay only the first N days (quick runs)")
    parser.add_argument("--config", help="a dedupe config JSON (kbsearch calibrate --out)")
    parser.add_argument(
        "--untuned", action="store_true", help="also replay the method and result summaries, which no rule was tuned on"
    )
    args = parser.parse_args()
    spec = resolve_model(args.model)
    encoder = load_encoder(spec)
    config = load_config(args.config, spec.dedupe)
    rows = load_stream(args.limit_days)
    print(
        f"model {encoder.model_id}; stream: {len(rows)} records over "
        f"{len({r['date'] for r in rows})} days; defaults: {config.model_dump()}\n"
    )
    print(f"{'set':34} {'system':34} {'P':>6} {'R':>6} {'F1':>6}")
    for view in [*VIEWS, *(UNTUNED_VIEWS if args.untuned else [])]:
        started = time.perf_counter()
        result = replay(rows, view, encoder, config)
        truth = result["truth"]
        for label, key in (("kbsearch DUPLICATE", "duplicate"), ("kbsearch DUPLICATE or UPDATE", "same_item")):
            p, r, f = prf(result[key], truth)
            print(f"{'stream: ' + view:34} {label:34} {p:6.3f} {r:6.3f} {f:6.3f}")
        threshold, p, r, f = best_threshold(result["raw"], truth)
        print(
            f"{'stream: ' + view:34} {f'raw cosine, best thr {threshold:.3f}':34} {p:6.3f} {r:6.3f} {f:6.3f}"
            f"   ({time.perf_counter() - started:.0f}s)"
        )
    print()
    pairs_table(encoder, config)
    print()
    for name, column in (("tatoeba-zh-en.tsv", "zh"), ("wmt22-en-zh.tsv", "zh_a")):
        recall = parallel_recall(EVAL / "parallel" / name, encoder, column)
        print(f"{'parallel: ' + name:34} {'zh→en recall@1 (dense)':34} {'':>6} {'':>6} {recall:6.3f}")


if __name__ == "__main__":
    main()
