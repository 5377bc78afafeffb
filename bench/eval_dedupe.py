"""Dedupe quality on the three dev streams, through the code the CLI runs.

    python bench/eval_dedupe.py [--gates pair,use,e5] [--streams A,B] [--reuse] [--fit] [--loso]

Each stream of ../shared/eval (README there) is written as a labelled
stream (``kbsearch.replay``) and replayed day by day through
``KnowledgeBase``: ingest the known records of the day, then ``check
--as-of DAY``. A checked record is *seen before* when its paper was ingested
earlier; kbsearch is scored twice, counting DUPLICATE or UPDATE as "seen
before" (the external protocol) and DUPLICATE alone. Beside it, each raw
model: the cosine to the nearest earlier record of the same view, at the
threshold that maximises F1 *chosen with the truth* (an upper bound no
deployed threshold reaches). Rows cover the later half of the days and all
days; the shipped same-item decisions were fitted on the earlier half only
(``--fit`` refits them that way and writes each gate's config).

Gates: ``pair``, the default (USE for the index, multilingual-e5-small as its
judge, the decision reading both); ``use`` and ``e5``, each model deciding
alone (its models.txt line without ``judge=``). ``--loso`` refits each gate's
decision on all days of two streams and scores the third (from the saved
replays), for how it carries to a stream it was not fitted on.

Streams:
- ``within-card``: feed a checked against its own earlier days, English
  title + Chinese summary, as paper cards;
- ``within``: the same, Chinese summary only, as increments;
- ``cross-feed``: feed c's summaries checked against feed a's, day by day;
- ``cross-lingual``: feed g's English summaries against feed a's Chinese
  ones, as increments; ``cross-lingual-card``: the same as paper cards.

Vectors are cached by text under $KBSEARCH_GATE_CACHE (default
/work/cache/gate; ``CachedEncoder``), so a rerun embeds nothing twice; the
scratch indexes live there too.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from cached_encoder import CACHE_DIR, CachedEncoder, CachedTokenEncoder  # noqa: E402

from kbsearch.dedupe.config_files import config_for, shipped_config_path  # noqa: E402
from kbsearch.dedupe.replay import ReplayResult, read_stream, replay  # noqa: E402
from kbsearch.dedupe.results import Verdict  # noqa: E402
from kbsearch.embed import Encoder, TokenEncoder, load_encoder, load_token_encoder  # noqa: E402
from kbsearch.kb import KnowledgeBase  # noqa: E402
from kbsearch.models import resolve_judge, resolve_model  # noqa: E402

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


def _curve(scores: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Scores high to low, and precision, recall and F1 when the first n of them are called positive."""
    order = np.argsort(-scores)
    hits = np.cumsum(truth[order])
    precision = hits / np.arange(1, len(order) + 1)
    recall = hits / max(1, truth.sum())
    return scores[order], precision, recall, 2 * precision * recall / np.maximum(precision + recall, 1e-9)


def best_f1(scores: np.ndarray, truth: np.ndarray) -> float:
    return float(_curve(scores, truth)[3].max())


def best_threshold(scores: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    """P, R and F1 at the threshold with the best F1 (``at``), chosen with the truth: the
    upper bound of a raw score. Only thresholds a score can take: tied scores fall together."""
    ranked, precision, recall, f1 = _curve(scores, truth)
    ends = np.flatnonzero(np.append(ranked[1:] != ranked[:-1], True))  # the last of each tie
    best = ends[::-1][np.argmax(f1[ends][::-1])]  # of equal F1, the lowest threshold
    found = {"p": precision[best], "r": recall[best], "f1": f1[best], "at": ranked[best]}
    return {k: round(float(v), 3) for k, v in found.items()}


class Gate:
    """One gate configuration: the index's model and, optionally, its judge."""

    def __init__(self, name: str, judged: bool) -> None:
        spec = resolve_model(name)
        self.spec = spec if judged else spec.model_copy(update={"judge": None})
        self.label = spec.name + (f"+{spec.judge}" if judged and spec.judge else "")
        self._encoders: tuple[Encoder, Encoder | None] | None = None

    def encoders(self) -> tuple[Encoder, Encoder | None]:
        if self._encoders is None:
            judge = resolve_judge(self.spec)
            self._encoders = (cached(self.spec.name), cached(judge.name) if judge else None)
        return self._encoders

    def tokens(self) -> TokenEncoder | None:
        """The judge's token vectors (cached), so every replay records the alignment."""
        judge = resolve_judge(self.spec)
        if judge is None:
            return None
        if judge.name not in _TOKENS:
            inner = load_token_encoder(judge)
            _TOKENS[judge.name] = CachedTokenEncoder(inner) if inner is not None else None
        return _TOKENS[judge.name]


_CACHED: dict[str, Encoder] = {}
_TOKENS: dict[str, TokenEncoder | None] = {}


def cached(model: str) -> Encoder:
    """One cached encoder per model, shared by every gate and the raw columns."""
    if model not in _CACHED:
        _CACHED[model] = CachedEncoder(load_encoder(resolve_model(model)))
    return _CACHED[model]


def run_stream(name: str, gate: Gate, config_path: str | None, days: int | None, reuse: bool) -> ReplayResult:
    root = WORK / f"{name}-{gate.label}"
    saved = root / "result.json"
    if reuse and saved.is_file():
        return ReplayResult.model_validate_json(saved.read_text())
    rows = read_stream(write_stream(name))
    if days:
        keep = sorted({r.date for r in rows})[:days]
        rows = [r for r in rows if r.date in set(keep)]
    shutil.rmtree(root, ignore_errors=True)
    config = config_for(gate.spec, config_path)
    encoder, judge = gate.encoders()
    tokens = gate.tokens()
    started = time.perf_counter()
    with KnowledgeBase(root / "index", gate.spec, create=True, encoder=encoder, judge=judge, tokens=tokens) as kb:
        result = replay(kb, rows, root / "days", config, on_day=_progress(f"{name} {gate.label}"))
    seconds = time.perf_counter() - started
    saved.write_text(result.model_dump_json())
    _say(f"  {name} {gate.label}: {len(result.checked)} checked in {seconds:.0f}s")
    return result


def _progress(label: str) -> Callable[[dt.date, int, int], None]:
    return lambda day, ingested, checked: _say(f"  {label} {day}: {ingested} ingested, {checked} checked")


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def later_days(stream: list[dict]) -> set[dt.date]:
    days = check_days(stream)
    return {dt.date.fromisoformat(d) for d in days[len(days) // 2 :]}


def table(
    name: str, results: dict[str, ReplayResult], raw: dict[str, dict[str, float]], stream: list[dict]
) -> list[str]:
    later = later_days(stream)
    lines = []
    for label, keep in (("later half", lambda c: c.date in later), ("all days", lambda c: True)):
        cells = []
        part: list = []
        for result in results.values():
            # items checked against a non-empty index
            part = [c for c in result.checked if keep(c) and c.id in next(iter(raw.values()))]
            truth = np.array([c.seen_before for c in part])
            p, r, f = prf(np.array([c.verdict is not Verdict.NEW for c in part]), truth)
            _, _, fd = prf(np.array([c.verdict is Verdict.DUPLICATE for c in part]), truth)
            recall = np.mean([c.candidate_found for c in part if c.seen_before]) if truth.any() else float("nan")
            cells.append(f"{f:.3f} (P {p:.3f}, R {r:.3f}) / {fd:.3f} / {recall:.3f}")
        truth = np.array([c.seen_before for c in part])
        raws = [best_f1(np.array([raw[m][c.id] for c in part]), truth) for m in RAW_MODELS]
        lines.append(
            f"| {name} | {label} | {len(part)} | {int(truth.sum())} | "
            + " | ".join(cells)
            + " | "
            + " | ".join(f"{x:.3f}" for x in raws)
            + " |"
        )
    return lines


GATES = {
    "pair": ("use-multilingual-v3", True),
    "use": ("use-multilingual-v3", False),
    "e5": ("multilingual-e5-small", False),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gates", default="pair,use,e5", help="comma-separated, from pair (USE + e5 judge), use, e5")
    parser.add_argument("--config", help="a dedupe config JSON for a single gate (default: each gate's own)")
    parser.add_argument("--streams", default=",".join(STREAMS), help=f"comma-separated, from {', '.join(STREAMS)}")
    parser.add_argument("--days", type=int, help="replay only the first N days (quick runs)")
    parser.add_argument("--reuse", action="store_true", help="read replays saved by an earlier run")
    parser.add_argument("--fit", action="store_true", help="first refit each gate's config on the earlier half")
    parser.add_argument("--fit-only", action="store_true", help="refit the configs and stop (no table)")
    parser.add_argument("--loso", action="store_true", help="leave one stream out: refit on two, score the third")
    args = parser.parse_args()
    gates = [Gate(*GATES[g.strip()]) for g in args.gates.split(",") if g.strip()]
    names = [n.strip() for n in args.streams.split(",") if n.strip()]
    if args.fit or args.fit_only:
        for gate in gates:
            # The card views are settled mostly by the card-title rule: few pairs for the fit.
            fit(gate, [n for n in names if not n.endswith("card")])
    if args.fit_only:
        return
    if args.loso:
        for gate in gates:
            print(loso(gate, {n: run_stream(n, gate, args.config, args.days, True) for n in names}), flush=True)
        return
    header = (
        "| stream | days | items | seen before | "
        + " | ".join(f"{g.label}: DUP or UPD F1 (P, R) / DUP F1 / candidate recall" for g in gates)
        + " | "
        + " | ".join(f"raw {m} best F1" for m in RAW_MODELS)
        + " |\n|"
        + "---|" * (4 + len(gates) + len(RAW_MODELS))
    )
    lines = []
    for name in names:
        results = {g.label: run_stream(name, g, args.config, args.days, args.reuse) for g in gates}
        stream = [json.loads(line) for line in write_stream(name).open(encoding="utf-8")]
        raw = {m: raw_scores(stream, cached(m)) for m in RAW_MODELS}
        lines += table(name, results, raw, stream)
        print("\n".join([header, *lines]), flush=True)


def loso(gate: Gate, results: dict[str, ReplayResult]) -> str:
    """Refit the same-item decision on all days of every stream but one and score
    the one left out (its later half and all its days): how the decision
    carries to a stream it never saw."""
    from kbsearch.dedupe.calibrate import fit_same_item, item_predictions

    lines = [
        f"leave one stream out, {gate.label}",
        "| held out | fitted on | threshold | later half F1 | all days F1 |",
    ]
    lines.append("|---|---|---|---|---|")
    for held in results:
        train = [results[n] for n in results if n != held]
        fitted = fit_same_item(
            train, None, "+".join(n for n in results if n != held), judged=gate.spec.judge is not None
        )
        stream = [json.loads(line) for line in write_stream(held).open(encoding="utf-8")]
        later = later_days(stream)
        seen = item_predictions(results[held].pairs, fitted.scorer, fitted.scorer.threshold)
        scores = []
        for part in ([c for c in results[held].checked if c.date in later], results[held].checked):
            truth = np.array([c.seen_before for c in part])
            p, r, f = prf(np.array([seen.get(c.id, False) for c in part]), truth)
            scores.append(f"{f:.3f} (P {p:.3f}, R {r:.3f})")
        others = ", ".join(n for n in results if n != held)
        lines.append(f"| {held} | {others} | {fitted.scorer.threshold:.2f} | {scores[0]} | {scores[1]} |")
    return "\n".join(lines)


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


def fit(gate: Gate, names: list[str]) -> None:
    """Refit a gate's shipped config with ``kbsearch calibrate`` on the earlier
    half of each stream's days (the later half is never replayed for it) and on
    the claim pairs of bench/claim_pairs.py. A gate without its model's judge
    runs with a models.txt whose line drops ``judge=``, as a user would."""
    streams = [str(earlier_half(n)) for n in names]
    if not (CACHE_DIR / "claims-fit.tsv").is_file():
        subprocess.run([sys.executable, str(ROOT / "bench" / "claim_pairs.py")], check=True)
    out = shipped_config_path(gate.spec.name, gate.spec.judge)
    command = [sys.executable, str(ROOT / "bench" / "calibrate_cached.py"), "--model", gate.spec.name, *streams]
    command += [str(CACHE_DIR / "claims-fit.tsv"), "--test", str(CACHE_DIR / "claims-test.tsv"), "--out", str(out)]
    env = dict(os.environ)
    if gate.spec.judge is None:
        alone = CACHE_DIR / "models-alone.txt"
        alone.write_text(re.sub(r" judge=\S+", "", (ROOT / "models.txt").read_text(encoding="utf-8")), encoding="utf-8")
        env["KBSEARCH_MODELS"] = str(alone)
    subprocess.run(command, check=True, env=env)


if __name__ == "__main__":
    main()
