"""Which claims are new: the gate, claim by claim, on increments shaped like the team's.

    python bench/eval_claims.py [--pairs within,feed,xling,mixed,within-en] [--days N] [--reuse] [--config F]
                                [--fit OUT [--features A,B,...]] [--rescore F] [--fit-items OUT]

The claim protocol of ../shared/eval (README there, "Claim-level replay"),
run through ``KnowledgeBase`` (the code the CLI runs) with cached vectors:

- KB side, feed a (Chinese): each day, one increment per paper P with
  text = its TLDR and claims = the first k(P) of [method, result],
  k(P) = int(sha1(P), 16) % 3;
- checked side: each day, one increment per paper with text = TLDR and
  claims = [method, result] in that feed's own words: feed a itself against
  its earlier days (``within``), feed c (``feed``), feed g in English
  (``xling``); or feed g's English of half the papers (by crc32 of the paper
  id) against feed a's Chinese plus g's English of the other half, stored
  (``mixed``: a store in both languages, where an English check's nearest
  records are English ones of other papers); or feed g against its own
  earlier days (``within-en``: English against English). Checked with ``check --as-of DAY``, never ingested (within
  the feed, the KB form of the day's papers is stored after the checks).
- Truth: P unseen → NEW; seen with k = 2 → DUPLICATE; else UPDATE, and a
  checked claim is new exactly when its field is not among the KB record's
  claims. *Clear* labels: every known claim and every NEW or DUPLICATE
  item; a new claim, and an UPDATE, only when its result carries a number
  the KB's record lacks.

Prints, per pair, for the later half of the check days and for all days:
seen-before P/R/F1; accuracy and per-class F1 on clear items (macro); the
new-claim P/R/F1 on clear labels and on every claim; the confusion on clear
items. Beside them, a raw baseline: each checked claim is new unless some
passage of an earlier record of any paper has judge (e5) cosine at or above
one threshold, *chosen with the truth* on the days scored (an upper bound no
deployed threshold reaches).

The streams are written under $KBSEARCH_GATE_CACHE/streams; replays under
…/claims, reused with --reuse.

With a config whose ``claim_said`` is set, each claim keeps the passages that
form weighed, with their features (``ClaimStatus.evidence``); they do not
depend on the form's weights (the passage weighed is the one covering most of
the claim). So ``--fit OUT`` fits ``claim_said`` on the earlier half of the
check days of the pairs run (``within-en``: on half its papers, and it is
reported on the other half, since feed g repeats papers only on its second
and third days) (examples: each weighed passage; positive when
its record is of the claim's paper and the claim is known), picks the
threshold with the best mean of the clear-label and every-claim new-claim
F1 on those days, and writes OUT;
``--fit-items OUT`` fits the two same-item forms for items with key points
(``claims_same_item``, ``aligned_claims_same_item``; docs/dedupe.md, "Key points
as item evidence") on each pair's fitting part of a replay's kept pairs, and
writes OUT; replay again with ``--config OUT`` to score them. And
``--rescore F`` re-decides every claim and verdict from the saved evidence
under F's form, as check would (a verdict is NEW when no same-item record
was found, DUPLICATE when every claim is known, else UPDATE), with no replay.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import re
import shutil
import sys
import zlib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
from cached_encoder import CACHE_DIR  # noqa: E402
from eval_dedupe import EVAL, Gate, _say, cached  # noqa: E402

from kbsearch.dedupe.calibrate import fit_same_item  # noqa: E402
from kbsearch.dedupe.claim_numbers import numbers_make_new  # noqa: E402
from kbsearch.dedupe.config import SAID_FEATURES, DedupeConfig  # noqa: E402
from kbsearch.dedupe.config_files import config_for, load_config  # noqa: E402
from kbsearch.dedupe.replay import Checked, ClaimOutcome, ReplayResult, read_stream, replay  # noqa: E402
from kbsearch.dedupe.results import ClaimEvidence, Verdict  # noqa: E402
from kbsearch.dedupe.scorer import Scorer, fit_logistic  # noqa: E402
from kbsearch.kb import KnowledgeBase  # noqa: E402

PAIRS = {
    "within": None,
    "feed": "arxiv-digest-dev-c.jsonl",
    "xling": "arxiv-digest-en-dev.jsonl",
    "mixed": "arxiv-digest-en-dev.jsonl",
    "within-en": None,
}
KB_FEED = {"within-en": "arxiv-digest-en-dev.jsonl"}
"""The KB side's feed where it is not feed a: ``within-en`` is feed g, in
English, against its own earlier days (English claims against English
records, which no other pair holds)."""
FIELDS = ("method", "result")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
WORK = CACHE_DIR / "claims"


def known_fields(paper: str) -> int:
    return int(hashlib.sha1(paper.encode()).hexdigest(), 16) % 3


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (EVAL / name).open(encoding="utf-8")]


def _lang(row: dict) -> str:
    return "zh" if row.get("tldr_zh") else "en"


def _usable(row: dict) -> bool:
    lang = _lang(row)
    return all((row.get(f"{f}_{lang}") or "").strip() for f in ("tldr", *FIELDS))


def _increment(row: dict, rid: str, claims: int) -> dict:
    lang = _lang(row)
    return {
        "id": rid,
        "kind": "increment",
        "title": "",
        "text": row[f"tldr_{lang}"],
        "claims": [row[f"{f}_{lang}"] for f in FIELDS[:claims]],
        "date": row["date"],
        "instance": f"feed-{row['feed']}",
        "topic": "arxiv",
    }


def _clear_new(row: dict, kb_text: str) -> bool:
    """A new result beyond doubt: it carries a number the KB's record lacks altogether."""
    numbers = set(NUMBER.findall(row.get(f"result_{_lang(row)}") or ""))
    return bool(numbers) and not numbers & set(NUMBER.findall(kb_text))


def stream_lines(pair: str) -> list[dict]:
    """The labelled stream of one pair (see ``kbsearch.dedupe.replay``)."""
    base = [r for r in _rows(KB_FEED.get(pair, "arxiv-digest-dev.jsonl")) if _usable(r)]
    first_day = min(r["date"] for r in base)
    checked_name = PAIRS[pair]
    checked = base if checked_name is None else [r for r in _rows(checked_name) if _usable(r)]
    checked = [r for r in checked if r["date"] >= first_day]
    kb_text: dict[str, str] = {}
    for row in base:  # what the KB holds of each paper, to tell a clear new result
        record = _increment(row, "", known_fields(row["paper"]))
        kb_text[row["paper"]] = kb_text.get(row["paper"], "") + " " + record["text"] + " " + " ".join(record["claims"])
    role = "after" if checked_name is None else "known"
    lines = [
        {**_increment(r, f"k-{n}", known_fields(r["paper"])), "item": r["paper"], "role": role}
        for n, r in enumerate(base)
    ]
    if pair == "mixed":
        lines += [
            {**_increment(r, f"e-{n}", len(FIELDS)), "item": r["paper"], "role": "known"}
            for n, r in enumerate(checked)
            if _stored_in_english(r["paper"])
        ]
        checked = [r for r in checked if not _stored_in_english(r["paper"])]
    for n, row in enumerate(checked):
        k = known_fields(row["paper"])
        known = [j < k for j in range(len(FIELDS))]
        clear = [j < k or (FIELDS[j] == "result" and _clear_new(row, kb_text.get(row["paper"], ""))) for j in (0, 1)]
        line = {**_increment(row, f"q-{n}", len(FIELDS)), "item": row["paper"], "role": "check"}
        lines.append({**line, "claims_known": known, "claims_clear": clear})
    return lines


def _stored_in_english(paper: str) -> bool:
    """``mixed``: the papers whose English summaries are stored beside feed a's Chinese.
    The others are checked in English: a known record of theirs is Chinese only, while
    English records of their neighbouring papers sit closer to them than any Chinese one."""
    return zlib.crc32(paper.encode()) % 2 == 0


def write_stream(pair: str) -> Path:
    path = CACHE_DIR / "streams" / f"claims-{pair}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file():
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in stream_lines(pair))
        path.write_text(text, encoding="utf-8")
    return path


def run_pair(pair: str, gate: Gate, config_path: str | None, days: int | None, reuse: bool) -> ReplayResult:
    root = WORK / f"{pair}-{gate.label}"
    saved = root / "result.json"
    if reuse and saved.is_file():
        return ReplayResult.model_validate_json(saved.read_text())
    rows = read_stream(write_stream(pair))
    if days:
        keep = set(sorted({r.date for r in rows if r.role == "check"})[:days])
        last = max(keep)
        rows = [r for r in rows if r.date <= last]
    # A fresh index every run: within the feed, a day's records are stored after its checks,
    # so a run over the last run's index found each checked paper already there.
    shutil.rmtree(root / "index", ignore_errors=True)
    root.mkdir(parents=True, exist_ok=True)
    encoder, judge = gate.encoders()
    with KnowledgeBase(
        root / "index", gate.spec, create=True, encoder=encoder, judge=judge, tokens=gate.tokens()
    ) as kb:
        result = replay(kb, rows, root / "days", config_for(gate.spec, config_path), on_day=_progress(pair))
    saved.write_text(result.model_dump_json())
    return result


def _progress(pair: str):  # type: ignore[no-untyped-def]
    return lambda day, ingested, checked: _say(f"  claims {pair} {day}: {ingested} ingested, {checked} checked")


def _truth(item: Checked) -> str:
    if not item.seen_before:
        return "NEW"
    return "DUPLICATE" if all(c.known for c in item.claims) else "UPDATE"


def _prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    p, r = tp / max(1, tp + fp), tp / max(1, tp + fn)
    return {"p": round(p, 3), "r": round(r, 3), "f1": round(2 * p * r / max(1e-9, p + r), 3)}


def known_in_new_items(checked: list[Checked]) -> dict[str, int]:
    """Claims shown known in items called NEW, right (a repeat the item decision missed, the claim
    known) and wrong (every other): the claim F1 counts only the first, as it reads the claims of
    items seen before, so it cannot see a never-seen paper's claim shown known."""
    said = [(item, c) for item in checked if item.verdict.value == "NEW" for c in item.claims if c.said_known]
    right = sum(item.seen_before and c.known for item, c in said)
    return {"right": right, "wrong": len(said) - right}


def scores(checked: list[Checked]) -> dict[str, object]:
    """Every measure of the issue's table, for these checked items."""
    seen, confusion, claims_clear, claims_all = Counter(), Counter(), Counter(), Counter()
    for item in checked:
        truth, said = _truth(item), item.verdict.value
        seen["tp"] += truth != "NEW" and said != "NEW"
        seen["fp"] += truth == "NEW" and said != "NEW"
        seen["fn"] += truth != "NEW" and said == "NEW"
        clear_item = truth != "UPDATE" or any(not c.known and c.clear for c in item.claims)
        if clear_item:
            confusion[(truth, said)] += 1
        if not item.seen_before:
            continue
        for claim in item.claims:
            new, said_new = not claim.known, not claim.said_known
            for counts, keep in ((claims_all, True), (claims_clear, claim.clear)):
                if keep:
                    counts["tp"] += new and said_new
                    counts["fp"] += said_new and not new
                    counts["fn"] += new and not said_new
    labels = ("NEW", "UPDATE", "DUPLICATE")
    per_class = {}
    for label in labels:
        tp = confusion[(label, label)]
        fp = sum(confusion[(t, label)] for t in labels if t != label)
        fn = sum(confusion[(label, v)] for v in labels if v != label)
        per_class[label] = _prf(tp, fp, fn)["f1"]
    total = sum(confusion.values())
    return {
        "checked": len(checked),
        "seen_before": _prf(seen["tp"], seen["fp"], seen["fn"]),
        "clear_items": total,
        "clear_accuracy": round(sum(confusion[(x, x)] for x in labels) / max(1, total), 3),
        "clear_class_f1": per_class,
        "clear_macro_f1": round(sum(per_class.values()) / 3, 3),
        "new_claims_clear": _prf(claims_clear["tp"], claims_clear["fp"], claims_clear["fn"]),
        "new_claims_all": _prf(claims_all["tp"], claims_all["fp"], claims_all["fn"]),
        "known_in_new_items": known_in_new_items(checked),
        "confusion_clear": {f"{t}->{v}": confusion[(t, v)] for t in labels for v in labels},
    }


FITTING = "the earlier half of the days; within-en: the papers of even crc32"
PAPER_SPLIT = {"within-en"}
"""Pairs fitted on half their papers and reported on the other half, not split by day:
feed g repeats its papers on its second and third days only, so its later days hold
almost no repeat."""


def fitting_part(pair: str, checked: list[Checked]) -> list[Checked]:
    """The checks a form may be fitted on: the earlier half of the days, or half the papers."""
    if pair in PAPER_SPLIT:
        papers = items_of(pair)
        return [c for c in checked if zlib.crc32(papers[c.id].encode()) % 2 == 0]
    days = sorted({c.date for c in checked})
    earlier = set(days[: len(days) // 2])
    return [c for c in checked if c.date in earlier]


def halves(pair: str, checked: list[Checked]) -> dict[str, list[Checked]]:
    """The part reported apart from the fitting (the later half, or the other papers), and all."""
    fitted = {c.id for c in fitting_part(pair, checked)}
    label = "other papers" if pair in PAPER_SPLIT else "later half"
    return {label: [c for c in checked if c.id not in fitted], "all days": checked}


def items_of(pair: str) -> dict[str, str]:
    """Record id → its paper, for every record of the pair's stream."""
    return {str(r.record["id"]): r.item for r in read_stream(write_stream(pair))}


def said(outcome: ClaimOutcome, form: Scorer) -> bool:
    """Whether check calls the claim known under ``form``: the form on its weighed passages
    (as ``judge_said``: a same-item record's; the streams hold no living-doc section, the only
    other record that makes a claim known), or the judge's cosine decision, which the form
    does not change."""
    by_form = any(_said_by(e, form) for e in outcome.evidence if e.same_item)
    return by_form or outcome.cosine_known


def _said_by(evidence: ClaimEvidence, form: Scorer) -> bool:
    """As ``judge_said`` decides one weighed passage (``numbers_make_new``)."""
    weighed = evidence.model_copy(update={"probability": form.probability(evidence.features)})
    moved = evidence.moved_on is not None
    return form.decide(weighed.probability) and not moved and not numbers_make_new(weighed, form)


def redecided(result: ReplayResult, form: Scorer) -> list[Checked]:
    """Every checked item with its claims and verdict decided again under ``form``."""
    out = []
    for item in result.checked:
        claims = [c.model_copy(update={"said_known": said(c, form)}) for c in item.claims]
        verdict = item.verdict
        if verdict is not Verdict.NEW:  # the same item was found; the claims decide the rest
            verdict = Verdict.DUPLICATE if claims and all(c.said_known for c in claims) else Verdict.UPDATE
        out.append(item.model_copy(update={"claims": claims, "verdict": verdict}))
    return out


def examples(checked: list[Checked], items: dict[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """(features, labels) of every weighed passage of the ``checked`` items' claims."""
    rows, labels = [], []
    for item in checked:
        for claim in item.claims:
            for evidence in claim.evidence:
                rows.append([evidence.features[name] for name in FEATURES])
                labels.append(claim.known and items.get(evidence.id) == items.get(item.id))
    return np.array(rows, dtype=np.float64), np.array(labels, dtype=np.float64)


FEATURES: tuple[str, ...] = SAID_FEATURES


def _fitting_f1(fitting: list[list[Checked]], form: Scorer, threshold: float) -> float:
    """The mean, over the pairs' earlier halves, of the clear-label and every-claim new-claim F1."""
    decided = form.model_copy(update={"threshold": threshold})
    f1s = []
    for part in fitting:
        found = scores(redecided(ReplayResult(checked=part), decided))
        f1s += [found["new_claims_clear"]["f1"], found["new_claims_all"]["f1"]]  # type: ignore[index]
    return sum(f1s) / len(f1s)


def fit_said(results: dict[str, ReplayResult], base: DedupeConfig, out: Path) -> DedupeConfig:
    """Fit ``claim_said`` on each pair's fitting part (``fit_said_form``). Writes and returns the config."""
    form = fit_said_form(results)
    config = base.model_copy(update={"claim_said": form})
    out.write_text(config.model_dump_json(indent=2), encoding="utf-8")
    _say(f"claim_said: threshold {form.threshold:.2f}: {out}")
    return config


def fit_said_form(results: dict[str, ReplayResult]) -> Scorer:
    """``claim_said`` fitted on each pair's fitting part (``fitting_part``), with the threshold of
    the best mean new-claim F1 (clear labels and every claim) there."""
    xs, ys = [], []
    fitting = [fitting_part(pair, result.checked) for pair, result in results.items()]
    for pair, part in zip(results, fitting, strict=True):
        x, y = examples(part, items_of(pair))
        xs.append(x)
        ys.append(y)
    x, y = np.vstack(xs), np.concatenate(ys)
    names = ", ".join(results)
    fitted_on = f"{len(y)} weighed passages, fitting part of {names} ({FITTING})"
    form = fit_logistic(FEATURES, x, y, l2=1.0, fitted_on=fitted_on)
    # Clear new claims carry a number the record lacks, which the number rule catches at any
    # threshold: chosen on them alone, the threshold falls to the floor and every qualitative
    # new fact of a same-item record is called known. So the mean of the clear-label and the
    # every-claim F1, over each pair's earlier half.
    grid = np.concatenate([np.arange(0.01, 0.2, 0.01), np.arange(0.2, 0.81, 0.02)])
    best = max((round(float(t), 2) for t in grid), key=lambda t: _fitting_f1(fitting, form, t))
    _say(f"claim_said fitted on {len(y)} passages ({int(y.sum())} saying the claim); threshold {best:.2f}")
    return form.model_copy(update={"threshold": round(best, 2)})


def fitting_results(results: dict[str, ReplayResult]) -> list[ReplayResult]:
    """Each pair's replay cut to its fitting part: its checks and their compared pairs."""
    parts = []
    for pair, result in results.items():
        checked = fitting_part(pair, result.checked)
        ids = {c.id for c in checked}
        parts.append(ReplayResult(checked=checked, pairs=[p for p in result.pairs if p.item in ids]))
    return parts


def fit_item_forms(results: dict[str, ReplayResult], base: DedupeConfig, out: Path) -> DedupeConfig:
    """Fit ``claims_same_item`` and ``aligned_claims_same_item`` on each pair's fitting part
    (``fitting_part``: the pairs of its checks), each threshold the best seen-before F1
    there over the items of all pairs. Writes and returns the config."""
    parts = fitting_results(results)
    sources = f"the claim-level dev pairs {', '.join(results)} ({FITTING})"
    days = (
        f"replayed through check with the judge (bench/eval_claims.py --fit-items, {dt.date.today()}); "
        "threshold: the best seen-before F1 over those pairs' items"
    )
    update = {}
    for name, aligned in (("claims_same_item", False), ("aligned_claims_same_item", True)):
        fitted = fit_same_item(parts, None, sources, judged=True, aligned=aligned, claims=True, days=days)
        update[name] = fitted.scorer
        _say(f"{name}: threshold {fitted.scorer.threshold}; on the fitting part {fitted.fitted}")
    config = base.model_copy(update=update)
    out.write_text(config.model_dump_json(indent=2), encoding="utf-8")
    return config


def raw_baseline(pair: str, checked: list[Checked]) -> dict[str, object]:
    """e5's cosine of each claim to its nearest passage (TLDR or claim) of any record known
    by its day, new below one threshold chosen with the truth (the best new-claim F1 on
    these items, clear labels and all labels apart): a bound no deployed threshold reaches."""
    rows = read_stream(write_stream(pair))
    by_id = {str(r.record["id"]): r for r in rows}
    known = [r for r in rows if r.role != "check"]
    texts = [t for r in known for t in [str(r.record["text"]), *r.record.get("claims", [])]]  # type: ignore[list-item]
    owners = [r for r in known for _ in range(1 + len(r.record.get("claims", [])))]  # type: ignore[arg-type]
    encoder = cached("multilingual-e5-small")
    vectors = encoder.encode(texts)
    days = np.array([o.date.toordinal() for o in owners])
    after = np.array([o.role == "after" for o in owners])  # stored after its day's checks (within the feed)
    best: list[tuple[float, bool, bool]] = []  # (best cosine, truth new, clear)
    for item in (c for c in checked if c.seen_before):
        row = by_id[item.id]
        claims = [str(c) for c in row.record.get("claims", [])]  # type: ignore[union-attr]
        day = item.date.toordinal()
        seen = (days < day) | ((days == day) & ~after)  # what the check could see, as the replay stores it
        if not claims or not seen.any():
            continue
        cosines = encoder.encode(claims) @ vectors[seen].T
        for outcome, top in zip(item.claims, cosines.max(axis=1), strict=False):
            best.append((float(top), not outcome.known, outcome.clear))
    out: dict[str, object] = {}
    for label, keep in (("clear", lambda b: b[2]), ("all", lambda b: True)):
        kept = [b for b in best if keep(b)]
        f1s = []
        for t in np.arange(0.70, 1.0, 0.005):
            tp = sum(1 for c, new, _ in kept if new and c < t)
            fp = sum(1 for c, new, _ in kept if not new and c < t)
            fn = sum(1 for c, new, _ in kept if new and c >= t)
            f1s.append((_prf(tp, fp, fn)["f1"], round(float(t), 3), _prf(tp, fp, fn)))
        _, threshold, prf = max(f1s)
        out[label] = {**prf, "threshold": threshold}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", default=",".join(PAIRS), help=f"comma-separated, from {', '.join(PAIRS)}")
    parser.add_argument("--days", type=int, help="replay only the first N check days (quick runs)")
    parser.add_argument("--reuse", action="store_true", help="read replays saved by an earlier run")
    parser.add_argument("--config", help="a dedupe config JSON (default: the shipped one)")
    parser.add_argument("--fit", type=Path, help="fit claim_said on the earlier half and write the config here")
    parser.add_argument("--features", help="comma-separated claim_said features for --fit (default: all)")
    parser.add_argument(
        "--fit-items", type=Path, help="fit the same-item forms for items with key points and write the config here"
    )
    parser.add_argument("--rescore", help="re-decide from the saved evidence under this config's claim_said")
    parser.add_argument("--raw", action="store_true", help="beside each row, e5's claim-to-passage cosine alone")
    args = parser.parse_args()
    global FEATURES
    if args.features:
        FEATURES = tuple(args.features.split(","))
    gate = Gate("use-multilingual-v3", judged=True)
    cached("use-multilingual-v3")
    results = {pair: run_pair(pair, gate, args.config, args.days, args.reuse) for pair in args.pairs.split(",")}
    if args.fit_items:
        fit_item_forms(results, config_for(gate.spec, args.config), args.fit_items)
        return
    form = None
    if args.fit:
        form = fit_said(results, config_for(gate.spec, args.config), args.fit).claim_said
    elif args.rescore:
        form = load_config(args.rescore, gate.spec.name, judge=gate.spec.judge).claim_said
    for pair, result in results.items():
        checked = result.checked if form is None else redecided(result, form)
        for label, part in halves(pair, checked).items():
            line = {"pair": pair, "days": label, **scores(part)}
            if args.raw:
                line["raw_e5_new_claims"] = raw_baseline(pair, part)
            print(json.dumps(line, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
