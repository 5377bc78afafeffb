"""Dedupe quality on the three dev streams, through the code the CLI runs.

    python bench/eval_dedupe.py [--model NAME] [--config FILE] [--streams A,B] [--days N]

Each stream of ../shared/eval (README there) is written as a labelled
stream (``kbsearch.replay``) and replayed day by day through
``KnowledgeBase``: ingest the known records of the day, then ``check
--as-of DAY``. A checked record is *seen before* when its paper was ingested
earlier; kbsearch is scored twice, counting DUPLICATE or UPDATE as "seen
before" (the external protocol) and DUPLICATE alone. Beside it, each raw
model: the cosine to the nearest earlier record of the same view, at the
threshold that maximises F1 *chosen with the truth* (an upper bound no
deployed threshold reaches). Rows cover all days and the later half of the
days; the shipped same-item decision was fitted on the earlier half only
(``--fit`` refits it that way and writes the model's config).

Streams:
- ``within-card``: feed a checked against its own earlier days, English
  title + Chinese summary, as paper cards;
- ``within``: the same, Chinese summary only, as increments;
- ``cross-feed``: feed c's summaries checked against feed a's, day by day;
- ``cross-lingual``: feed g's English summaries against feed a's Chinese
  ones, as increments; ``cross-lingual-card``: the same as paper cards.

Vectors are cached by text under /work/cache/gate (``CachedEncoder``), so a
rerun embeds nothing twice; the scratch indexes live there too.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from cached_encoder import CACHE_DIR, CachedEncoder  # noqa: E402

from kbsearch.dedupe.config import config_for  # noqa: E402
from kbsearch.dedupe.replay import ReplayResult, read_stream, replay  # noqa: E402
from kbsearch.dedupe.results import Verdict  # noqa: E402
from kbsearch.embed import Encoder, load_encoder  # noqa: E402
from kbsearch.kb import KnowledgeBase  # noqa: E402
from kbsearch.models import resolve_model  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval" / "domain"
WORK = CACHE_DIR / "replay"
RAW_MODELS = ("use-multilingual-v3", "multilingual-e5-small")
STREAMS = ("within-card", "within", "cross-feed", "cross-lingual", "cross-lingual-card")


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (EVAL / name).open(encoding="utf-8")]


def _record(row: dict, number: int, card: bool) -> dict:
    """A JSONL record as an outside caller writes one: summary text, the feed as instance."""
    text = row.get("tldr_zh") or row.get("tldr_en") or ""
    record = {"id": f"{row['feed']}-{row['date']}-{number}", "kind": "increment", "text": text}
    record.update(date=row["date"], instance=f"feed{row['feed']}")
    if card:
        record.update(kind="paper_card", title=row["title"])
    return record


def write_stream(name: str) -> Path:
    """The labelled stream file for one of ``STREAMS``."""
    card = name.endswith("card")
    feed_a = _rows("arxiv-digest-dev.jsonl")
    if name.startswith("within"):
        lines = [{**_record(r, n, card), "item": r["paper"], "role": "both"} for n, r in enumerate(feed_a)]
    else:
        checked = _rows("arxiv-digest-dev-c.jsonl" if name == "cross-feed" else "arxiv-digest-en-dev.jsonl")
        lines = [{**_record(r, n, card), "item": r["paper"], "role": "known"} for n, r in enumerate(feed_a)]
        lines += [{**_record(r, n, card), "item": r["paper"], "role": "check"} for n, r in enumerate(checked)]
    path = CACHE_DIR / "streams" / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file():  # the same every time; several runs may read it at once
        path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def raw_scores(stream: list[dict], encoder: Encoder) -> dict[str, float]:
    """Checked id → cosine to the nearest record ingested before it was checked."""
    by_day: dict[str, list[dict]] = defaultdict(list)
    for line in stream:
        by_day[line["date"]].append(line)
    text = lambda line: "\n".join(p for p in (line.get("title", ""), line["text"]) if p)  # noqa: E731
    known: list[np.ndarray] = []
    scores: dict[str, float] = {}
    for day in sorted(by_day):
        today = by_day[day]
        fresh = [line for line in today if line["role"] == "known"]
        if fresh:
            known.append(encoder.encode([text(line) for line in fresh]))
        checks = [line for line in today if line["role"] in ("check", "both")]
        if checks and known:
            vectors = encoder.encode([text(line) for line in checks])
            best = (vectors @ np.concatenate(known).T).max(axis=1)
            scores.update((line["id"], float(s)) for line, s in zip(checks, best, strict=True))
        later = [line for line in today if line["role"] == "both"]
        if later:
            known.append(encoder.encode([text(line) for line in later]))
    return scores


def prf(predicted: np.ndarray, truth: np.ndarray) -> tuple[float, float, float]:
    tp = int((predicted & truth).sum())
    precision = tp / max(1, int(predicted.sum()))
    recall = tp / max(1, int(truth.sum()))
    return precision, recall, 2 * precision * recall / max(1e-9, precision + recall)


def best_f1(scores: np.ndarray, truth: np.ndarray) -> float:
    order = np.argsort(-scores)
    hits = np.cumsum(truth[order])
    precision = hits / np.arange(1, len(order) + 1)
    recall = hits / max(1, truth.sum())
    return float((2 * precision * recall / np.maximum(precision + recall, 1e-9)).max())


def run_stream(name: str, model: str, encoder: Encoder, config_path: str | None, days: int | None) -> ReplayResult:
    path = write_stream(name)
    rows = read_stream(path)
    if days:
        keep = sorted({r.date for r in rows})[:days]
        rows = [r for r in rows if r.date in set(keep)]
    root = WORK / f"{name}-{model}"
    shutil.rmtree(root, ignore_errors=True)
    spec = resolve_model(model)
    config = config_for(spec, config_path)
    started = time.perf_counter()
    with KnowledgeBase(root / "index", spec, create=True, encoder=encoder) as kb:
        result = replay(kb, rows, root / "days", config, on_day=lambda d, n: _say(f"  {name} {d}: {n} checked"))
    seconds = time.perf_counter() - started
    (root / "result.json").write_text(result.model_dump_json())
    print(f"  {name}: {len(result.checked)} checked in {seconds:.0f}s", file=sys.stderr)
    return result


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def table(name: str, result: ReplayResult, raw: dict[str, dict[str, float]], stream: list[dict]) -> list[str]:
    days = check_days(stream)
    later = {dt.date.fromisoformat(d) for d in days[len(days) // 2 :]}
    lines = []
    for label, part in (("all days", result.checked), ("later half", [c for c in result.checked if c.date in later])):
        part = [c for c in part if c.id in next(iter(raw.values()))]  # items checked against a non-empty index
        truth = np.array([c.seen_before for c in part])
        same = np.array([c.verdict is not Verdict.NEW for c in part])
        dup = np.array([c.verdict is Verdict.DUPLICATE for c in part])
        recall = np.mean([c.candidate_found for c in part if c.seen_before]) if truth.any() else float("nan")
        p, r, f = prf(same, truth)
        _, _, fd = prf(dup, truth)
        raws = [best_f1(np.array([raw[m][c.id] for c in part]), truth) for m in RAW_MODELS]
        lines.append(
            f"| {name} | {label} | {len(part)} | {int(truth.sum())} | **{f:.3f}** (P {p:.3f}, R {r:.3f}) | {fd:.3f} | "
            + " | ".join(f"{x:.3f}" for x in raws)
            + f" | {recall:.3f} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="model name from models.txt (default: the default)")
    parser.add_argument("--config", help="a dedupe config JSON (default: the model's own)")
    parser.add_argument("--streams", default=",".join(STREAMS), help=f"comma-separated, from {', '.join(STREAMS)}")
    parser.add_argument("--days", type=int, help="replay only the first N days (quick runs)")
    parser.add_argument(
        "--fit", action="store_true", help="first refit the model's config on the earlier half (kbsearch calibrate)"
    )
    parser.add_argument("--fit-only", action="store_true", help="refit the config and stop (no table)")
    args = parser.parse_args()
    spec = resolve_model(args.model)
    encoder = CachedEncoder(load_encoder(spec))
    names = [n.strip() for n in args.streams.split(",") if n.strip()]
    if args.fit or args.fit_only:
        # The card views are settled mostly by the card-title rule: few pairs for the fit.
        fit(spec.name, [n for n in names if not n.endswith("card")])
    if args.fit_only:
        return
    raw_encoders = {m: encoder if m == spec.name else CachedEncoder(load_encoder(resolve_model(m))) for m in RAW_MODELS}
    header = (
        f"model {spec.name}\n\n| stream | days | items | seen before | kbsearch DUP or UPD F1 | kbsearch DUP F1 | "
        + " | ".join(f"raw {m} best F1" for m in RAW_MODELS)
        + " | candidate recall |\n|---|---|---|---|---|---|"
        + "---|" * len(RAW_MODELS)
        + "---|"
    )
    lines = []
    for name in names:
        result = run_stream(name, spec.name, encoder, args.config, args.days)
        stream = [json.loads(line) for line in write_stream(name).open(encoding="utf-8")]
        raw = {m: raw_scores(stream, e) for m, e in raw_encoders.items()}
        lines += table(name, result, raw, stream)
        print("\n".join([header, *lines]), flush=True)


def check_days(lines: list[dict]) -> list[str]:
    """The days on which some record is checked against a non-empty index."""
    first_known = min((line["date"] for line in lines if line["role"] != "check"), default="")
    checked = {line["date"] for line in lines if line["role"] in ("check", "both")}
    return sorted(
        d for d in checked if d > first_known or any(line["date"] <= d and line["role"] == "known" for line in lines)
    )


def earlier_half(name: str) -> Path:
    """The stream cut before the first day of its later half: all a fit may see."""
    lines = [json.loads(line) for line in write_stream(name).open(encoding="utf-8")]
    days = check_days(lines)
    cut = days[len(days) // 2]
    path = CACHE_DIR / "streams" / f"{name}-earlier-half.jsonl"
    if not path.is_file():
        path.write_text(
            "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines if x["date"] < cut), encoding="utf-8"
        )
    return path


def fit(model: str, names: list[str]) -> None:
    """Refit the model's shipped config with ``kbsearch calibrate`` on the earlier
    half of each stream's days (the later half is never replayed for it) and on
    the claim pairs of bench/claim_pairs.py."""
    streams = [str(earlier_half(n)) for n in names]
    if not (CACHE_DIR / "claims-fit.tsv").is_file():
        subprocess.run([sys.executable, str(ROOT / "bench" / "claim_pairs.py")], check=True)
    out = ROOT / "kbsearch" / "scorers" / f"{model}.json"
    command = [sys.executable, str(ROOT / "bench" / "calibrate_cached.py"), "--model", model, *streams]
    command += [str(CACHE_DIR / "claims-fit.tsv"), "--test", str(CACHE_DIR / "claims-test.tsv"), "--out", str(out)]
    subprocess.run(command, check=True)


if __name__ == "__main__":
    main()
