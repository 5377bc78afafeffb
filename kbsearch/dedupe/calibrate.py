"""``kbsearch calibrate``: fit the gate's two learned decisions on labelled data.

- Labelled streams (``.jsonl``, see ``kbsearch.dedupe.replay``) fit the same-item
  decision: each stream is replayed through ``check`` in a scratch index,
  every compared pair is kept with its features and its truth, and a
  logistic regression is fitted on the pairs of the days up to ``until``;
  its threshold is the one that maximises the F1 of "seen before" over the
  items of those days. The items of the later days are scored, not fitted.
- Labelled pairs (``.tsv``: a header row ``a``, ``b``, ``label``, optional
  ``lang``, then one pair a line, label 0 or 1) fit the claim decision ("says
  the same thing"); ``test`` pairs are scored, not fitted.

A decision the inputs do not fit keeps what the starting config has: for a
model never fitted, a placeholder that ``check``, ``audit``, ``explain`` and
``similar`` refuse (``config.unfitted``), and the result says so.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import numpy as np

from kbsearch.dedupe.calibrate_results import Calibration, Fitted, RuleErrors, Score, prf
from kbsearch.dedupe.claims import claim_features
from kbsearch.dedupe.config import CLAIM_FEATURES, FITTED_BY, DedupeConfig, unfitted
from kbsearch.dedupe.features import ALIGNED_FEATURES, claims_features_of, same_item_features
from kbsearch.dedupe.labelled_pairs import read_pairs
from kbsearch.dedupe.replay import Checked, Gate, PairExample, ReplayResult, read_stream, replay
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.scorer import Scorer, fit_logistic
from kbsearch.embed import Encoder
from kbsearch.errors import KbError
from kbsearch.text.textsim import jaccard, language, lexical_tokens

FEW = 50
"""Fewer examples than this (pairs, or checked items) and calibrate warns that
its figures say little: one pair more or less moves F1 by several points."""
GRID = [round(t, 2) for t in np.arange(0.05, 0.96, 0.05)]
"""The thresholds a same-item decision is chosen from (the best item-level F1)."""
L2 = 1.0
"""Ridge penalty on the standardised weights: small beside the thousands of
examples, enough to keep collinear features (cosine, relative) finite."""


# -- claim pairs -----------------------------------------------------------------


def claim_rows(rows: list[dict[str, str]], encoder: Encoder) -> tuple[np.ndarray, np.ndarray]:
    """The claim decision's features for labelled pairs, as ``check`` computes them."""
    a = encoder.encode([r["a"] for r in rows])
    b = encoder.encode([r["b"] for r in rows])
    table = []
    for row, cosine in zip(rows, np.sum(a * b, axis=1).tolist(), strict=True):
        cross = language(row["a"]) != language(row["b"])
        lexical = jaccard(lexical_tokens(row["a"]), lexical_tokens(row["b"]))
        features = claim_features(min(1.0, cosine), cross, lexical)
        table.append([features[name] for name in CLAIM_FEATURES])
    return np.array(table), np.array([r["label"] == "1" for r in rows])


def fit_claims(train: list[Path], test: list[Path], encoder: Encoder, start: Scorer | None = None) -> Fitted:
    rows = [row for path in train for row in read_pairs(path)]
    x, y = claim_rows(rows, encoder)
    if len(set(y.tolist())) < 2:
        raise KbError("the pairs need both labels, 0 and 1", path=str(train[0]))
    names = ", ".join(p.name for p in train)
    scorer = fit_logistic(CLAIM_FEATURES, x, y, l2=L2, fitted_on=f"{len(rows)} labelled pairs: {names}")
    fitted = prf(scorer.probabilities(x) >= scorer.threshold, y)
    held_out = started = None
    if test:
        test_rows = [row for path in test for row in read_pairs(path)]
        tx, ty = claim_rows(test_rows, encoder)
        held_out = prf(scorer.probabilities(tx) >= scorer.threshold, ty)
        if start is not None and _was_fitted(start) and set(start.features) <= set(CLAIM_FEATURES):
            columns = [CLAIM_FEATURES.index(name) for name in start.features]
            started = prf(start.probabilities(tx[:, columns]) >= start.threshold, ty)
        tested = ", ".join(p.name for p in test)
        scorer = scorer.model_copy(
            update={
                "score": f"F1 {held_out.f1:.3f} (P {held_out.precision:.3f}, R {held_out.recall:.3f}) "
                f"on {len(test_rows)} pairs not fitted on: {tested}"
            }
        )
    return Fitted(decision="claim_known", scorer=scorer, fitted=fitted, held_out=held_out, start_held_out=started)


# -- labelled streams ---------------------------------------------------------------


def replay_streams(streams: list[Path], open_kb: Callable[[Path], Gate], config: DedupeConfig) -> list[ReplayResult]:
    """Replay each stream into its own scratch index."""
    results = []
    for path in streams:
        rows = read_stream(path)
        with tempfile.TemporaryDirectory(prefix="kbsearch-calibrate-") as folder, open_kb(Path(folder) / "index") as kb:
            results.append(replay(kb, rows, Path(folder) / "days", config))
    return results


def item_predictions(pairs: list[PairExample], scorer: Scorer, threshold: float) -> dict[str, bool]:
    """Item id → whether some known record is the same item, re-decided from
    the kept features (exact evidence stands as it was)."""
    seen: dict[str, bool] = {}
    for pair in pairs:
        learned = pair.rule is Rule.learned
        same = scorer.probability(pair.features) >= threshold if learned else pair.exact_same
        seen[pair.item] = seen.get(pair.item, False) or same
    return seen


Until = dt.date | Literal["half"] | None
"""Fit on stream days up to a date, on each stream's earlier half of its
checked days, or on every day."""


def _cutoff(result: ReplayResult, until: Until) -> dt.date | None:
    """The last day fitted on for one stream (None: every day)."""
    if until is None or isinstance(until, dt.date):
        return until
    days = sorted({c.date for c in result.checked})
    return days[len(days) // 2 - 1] if len(days) > 1 else None


def fit_same_item(
    results: list[ReplayResult],
    until: Until,
    sources: str,
    *,
    judged: bool = False,
    aligned: bool = False,
    claims: bool = False,
    days: str | None = None,
    start: Scorer | None = None,
) -> Fitted:
    """Fit the same-item decision on the replayed pairs of the fitting days
    (``judged``: with the judge model's features too; ``aligned``: and the
    judge's token alignment, the decision ``check`` reads; ``claims``: instead,
    the key points' features, on the pairs of items that have key points). ``days``
    describes the fitted part in ``fitted_on`` when ``until`` does not (a caller's own split)."""
    names = same_item_features(judged) + (ALIGNED_FEATURES if aligned else ())
    names += claims_features_of(judged) if claims else ()
    results = [_own_ids(r, n) for n, r in enumerate(results)] if len(results) > 1 else results
    cutoffs = [_cutoff(r, until) for r in results]
    early = [p for r, c in zip(results, cutoffs, strict=True) for p in r.pairs if c is None or p.date <= c]
    late = [p for r, c in zip(results, cutoffs, strict=True) for p in r.pairs if c is not None and p.date > c]
    fit_items = [x for r, c in zip(results, cutoffs, strict=True) for x in r.checked if c is None or x.date <= c]
    late_items = [x for r, c in zip(results, cutoffs, strict=True) for x in r.checked if c is not None and x.date > c]
    needed = set(names)
    # A form decides only the pairs that have its features (check reads the alignment
    # of the nearest candidates only, and only an item with key points has their features).
    early, late = ([p for p in ps if p.rule is not Rule.learned or needed <= p.features.keys()] for ps in (early, late))
    if claims:
        with_claims = {p.item for p in early if "claims_covered" in p.features}
        with_claims |= {p.item for p in late if "claims_covered" in p.features}
        fit_items = [x for x in fit_items if x.id in with_claims]
        late_items = [x for x in late_items if x.id in with_claims]
    learned = [p for p in early if p.rule is Rule.learned]
    if len({p.same for p in learned}) < 2:
        raise KbError(
            "the fitted days compared no pair of each kind (same item and not) that exact evidence left open",
            hint="give more days, or streams whose checked records repeat known ones in other words",
        )
    x = np.array([[p.features[name] for name in names] for p in learned])
    y = np.array([p.same for p in learned])
    days = days or (
        "all days"
        if until is None
        else "the earlier half of each stream's days"
        if until == "half"
        else f"days up to {until}"
    )
    scorer = fit_logistic(names, x, y, l2=L2, fitted_on=f"{len(learned)} compared pairs of {sources}, {days}")
    scorer = scorer.model_copy(update={"threshold": _best_threshold(early, fit_items, scorer)})
    fitted = _item_score(early, fit_items, scorer)
    held_out, errors, was = None, None, None
    if late_items:
        held_out = _item_score(late, late_items, scorer)
        if start is not None and _was_fitted(start, late):
            was = _item_score(late, late_items, start)
        errors = rule_errors(late, late_items, scorer)
        scorer = scorer.model_copy(
            update={
                "score": f"seen-before F1 {held_out.f1:.3f} (P {held_out.precision:.3f}, R {held_out.recall:.3f}) "
                f"over {held_out.examples} items of the later days, not fitted on"
            }
        )
    decision = ("aligned_" if aligned else "") + ("claims_" if claims else "") + "same_item"
    return Fitted(
        decision=decision, scorer=scorer, fitted=fitted, held_out=held_out, held_out_errors=errors, start_held_out=was
    )


def _was_fitted(scorer: Scorer, pairs: Sequence[PairExample] = ()) -> bool:
    """Whether a starting decision was fitted (as ``unfitted`` tells) and reads what the learned ``pairs`` have."""
    if scorer.fitted_on.startswith("nothing yet") or not any(scorer.weights):
        return False
    return all(set(scorer.features) <= p.features.keys() for p in pairs if p.rule is Rule.learned)


def rule_errors(pairs: list[PairExample], items: list[Checked], scorer: Scorer) -> RuleErrors:
    """The items the scorer gets wrong, and which of them a fixed rule settled."""
    seen = item_predictions(pairs, scorer, scorer.threshold)
    found = RuleErrors()
    for item in items:
        if seen.get(item.id, False) == item.seen_before:
            continue
        mine = [p for p in pairs if p.item == item.id]
        if item.seen_before:
            found.missed += 1
            deciding = [p for p in mine if p.same]  # a fit changes the miss only if it decides one of these
            fixed = deciding if deciding and all(p.rule is not Rule.learned for p in deciding) else []
        else:
            found.false_matches += 1
            fixed = [p for p in mine if p.rule is not Rule.learned and p.exact_same]
        if fixed:
            found.by_rule[fixed[0].rule.value] = found.by_rule.get(fixed[0].rule.value, 0) + 1
    return found


def _own_ids(result: ReplayResult, stream: int) -> ReplayResult:
    """The result with its item ids prefixed by its stream's number: two streams'
    items may share ids (q-0, q-1, ...), and the fit decides items by id."""
    pairs = [p.model_copy(update={"item": f"{stream}/{p.item}"}) for p in result.pairs]
    checked = [c.model_copy(update={"id": f"{stream}/{c.id}"}) for c in result.checked]
    return ReplayResult(checked=checked, pairs=pairs)


def _item_score(
    pairs: list[PairExample], items: list[Checked], scorer: Scorer, threshold: float | None = None
) -> Score:
    seen = item_predictions(pairs, scorer, scorer.threshold if threshold is None else threshold)
    predicted = np.array([seen.get(c.id, False) for c in items])
    truth = np.array([c.seen_before for c in items])
    return prf(predicted, truth)


def _best_threshold(pairs: list[PairExample], items: list[Checked], scorer: Scorer) -> float:
    """The threshold, in steps of 0.05, with the best item-level F1 on the fitting days."""
    return max(GRID, key=lambda t: (_item_score(pairs, items, scorer, t).f1, -abs(t - 0.5)))


def read_inputs(inputs: list[Path], tests: list[Path]) -> None:
    """Read every input once before any model loads: a malformed file is refused at once."""
    if not inputs:
        raise KbError("nothing to fit", hint="give labelled streams (.jsonl) and/or labelled pairs (.tsv)")
    for path in [*inputs, *tests]:
        _ = read_stream(path) if path.suffix == ".jsonl" else read_pairs(path)


def _notes(fitted: list[Fitted], missing: list[str]) -> list[str]:
    notes = [
        f"{f.decision} was fitted on {f.fitted.examples} {'pairs' if f.decision == 'claim_known' else 'items'}: "
        f"too few for its figures to say much (a few hundred is a start)"
        for f in fitted
        if f.fitted.examples < FEW
    ]
    notes += [
        f"{f.decision}'s threshold {f.scorer.threshold:.2f} is at the edge of the grid (a step or less from "
        f"{GRID[0]:.2f} or {GRID[-1]:.2f}): the best F1 on its {f.fitted.examples} fitted items lies there, so "
        "the data cannot place it; add more days, or other writers' history as role both, and fit again"
        for f in fitted
        if f.decision != "claim_known" and not GRID[1] < f.scorer.threshold < GRID[-2]
    ]
    return notes + [
        f"{name} stays unfitted (give calibrate {FITTED_BY[name][0]}, {FITTED_BY[name][1]}): "
        + ("check refuses" if name == "claim_known" else "check, audit, explain and similar refuse")
        + " this config until then"
        for name in missing
    ]


def calibrate(
    inputs: list[Path],
    *,
    encoder: Encoder,
    tests: list[Path] | None = None,
    until: Until = None,
    open_kb: Callable[[Path], Gate],
    config: DedupeConfig,
) -> Calibration:
    streams = [p for p in inputs if p.suffix == ".jsonl"]
    pairs = [p for p in inputs if p.suffix != ".jsonl"]
    if not streams and not pairs:
        raise KbError("nothing to fit", hint="give labelled streams (.jsonl) and/or labelled pairs (.tsv)")
    fitted = []
    if pairs:
        fitted.append(fit_claims(pairs, tests or [], encoder, start=config.claim_known))
        config = config.model_copy(update={"claim_known": fitted[-1].scorer})
    if streams:
        # Claims are judged with the claim decision just fitted: a replay's verdicts use it.
        results = replay_streams(streams, open_kb, config)
        sources = ", ".join(p.name for p in streams)
        fitted.append(fit_same_item(results, until, sources, judged=config.judge is not None, start=config.same_item))
        config = config.model_copy(update={"same_item": fitted[-1].scorer})
        aligned = any("aligned" in pair.features for result in results for pair in result.pairs)
        if aligned:
            start = config.aligned_same_item
            fitted.append(fit_same_item(results, until, sources, judged=True, aligned=True, start=start))
            config = config.model_copy(update={"aligned_same_item": fitted[-1].scorer})
        # Streams without key points leave the given config's key-point forms as they were.
        if any("claims_covered" in pair.features for result in results for pair in result.pairs):
            judged = config.judge is not None
            start = config.claims_same_item
            fitted.append(fit_same_item(results, until, sources, judged=judged, claims=True, start=start))
            config = config.model_copy(update={"claims_same_item": fitted[-1].scorer})
            if aligned:
                start = config.aligned_claims_same_item
                fit = fit_same_item(results, until, sources, judged=True, aligned=True, claims=True, start=start)
                fitted.append(fit)
                config = config.model_copy(update={"aligned_claims_same_item": fitted[-1].scorer})
    missing = unfitted(config)
    return Calibration(
        model=config.model, fitted=fitted, config=config, unfitted=missing, notes=_notes(fitted, missing)
    )
