"""Leave one writer out: do the key-point forms carry to a writer they were not fitted on?

    python bench/claims_lowo.py [--config F]

Reads the replays ``bench/eval_claims.py`` saved (run it first, all five
pairs, with the config whose forms are measured). The checked writer of each
claim-level pair: feed a in ``within``, feed c in ``feed``, feed g in
``xling``, ``mixed`` and ``within-en``. For each writer, the two key-point
forms (``claims_same_item``, ``aligned_claims_same_item``) are refitted as
``eval_claims.py --fit-items`` fits them, on the fitting parts of the pairs
that writer does not write, and scored on the reported parts of the pairs it
does. Beside them, on the same items: the forms of the config (fitted on the
fitting parts of all five pairs, so fitted on that writer's earlier days),
and the summary-only forms (``same_item``, ``aligned_same_item``), as
shipped (fitted on the three item-level dev streams, writer g's among them)
and refitted on the same claim-level pairs as the key-point forms without
the writer: the fair comparison. Last, the bar the issue sets for a writer
the gate was not fitted on: each raw cosine (e5's, USE's) at its best
threshold on the same items, chosen with the truth.

Every item is re-decided from the replay's kept pairs (exact evidence
stands; a pair with the alignment's features is decided by the aligned
form, as check decides its nearest candidates), so the rows compare forms,
not check end to end: check's "one item, not two" step is not re-run.
Feed a stays the known side of most pairs, so "without writer a" still
fits on pairs whose records feed a wrote.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
from eval_claims import PAIRS, fitting_results, halves, run_pair  # noqa: E402
from eval_dedupe import Gate, best_threshold  # noqa: E402

from kbsearch.dedupe.calibrate import fit_same_item  # noqa: E402
from kbsearch.dedupe.calibrate_results import prf  # noqa: E402
from kbsearch.dedupe.config_files import config_for  # noqa: E402
from kbsearch.dedupe.replay import Checked, PairExample, ReplayResult  # noqa: E402
from kbsearch.dedupe.results import Rule  # noqa: E402
from kbsearch.dedupe.scorer import Scorer  # noqa: E402

WRITERS = {"a": ("within",), "c": ("feed",), "g": ("xling", "mixed", "within-en")}
"""Each dev writer → the pairs whose checked items it wrote."""

Forms = tuple[Scorer, Scorer | None]
"""(the form without the alignment, the form with it)."""


def fit_forms(results: dict[str, ReplayResult], claims: bool = True) -> Forms:
    """The two key-point forms (``claims``; else the two summary-only forms), fitted on
    these pairs' fitting parts."""
    parts = fitting_results(results)
    sources = ", ".join(results)
    plain, aligned = (
        fit_same_item(parts, None, sources, judged=True, aligned=a, claims=claims).scorer for a in (False, True)
    )
    return plain, aligned


def decided(pair: PairExample, forms: Forms) -> bool:
    """The pair's verdict under the forms: exact evidence as the replay had it."""
    if pair.rule is not Rule.learned:
        return pair.exact_same
    plain, aligned = forms
    form = aligned if aligned is not None and "aligned" in pair.features else plain
    if not set(form.features) <= pair.features.keys():
        raise SystemExit(f"a kept pair lacks {sorted(set(form.features) - pair.features.keys())}: replay again")
    return form.decide(form.probability(pair.features))


def seen_before(result: ReplayResult, items: list[Checked], claims: Forms, summary: Forms) -> dict[str, float]:
    """Seen-before P/R/F1 over ``items``; a pair of an item with key points is read by ``claims``."""
    ids = {c.id for c in items}
    seen: dict[str, bool] = {}
    for pair in result.pairs:
        if pair.item in ids:
            forms = claims if "claims_covered" in pair.features else summary
            seen[pair.item] = seen.get(pair.item, False) or decided(pair, forms)
    predicted = np.array([seen.get(c.id, False) for c in items])
    score = prf(predicted, np.array([c.seen_before for c in items]))
    return {"p": round(score.precision, 3), "r": round(score.recall, 3), "f1": round(score.f1, 3)}


def raw_best(result: ReplayResult, items: list[Checked], feature: str) -> dict[str, float]:
    """Seen-before P/R/F1 of one raw cosine at its best threshold on ``items``, chosen
    with the truth: an item is seen when its best-scoring kept candidate reaches it.
    The bar a decision fitted without the writer should clear (issue 25). Only the
    candidates check kept are scored, not the whole index's nearest."""
    ids = {c.id for c in items}
    best: dict[str, float] = {}
    for pair in result.pairs:
        if pair.item in ids:
            best[pair.item] = max(best.get(pair.item, -1.0), pair.features.get(feature, -1.0))
    scores = np.array([best.get(c.id, -1.0) for c in items])
    return best_threshold(scores, np.array([c.seen_before for c in items]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", help="the config whose forms were replayed (default: the shipped one)")
    args = parser.parse_args()
    gate = Gate("use-multilingual-v3", judged=True)
    config = config_for(gate.spec, args.config)
    if config.claims_same_item is None:
        raise SystemExit("the config has no key-point forms to compare with")
    results = {pair: run_pair(pair, gate, args.config, None, reuse=True) for pair in PAIRS}
    summary: Forms = (config.same_item, config.aligned_same_item)
    shipped: Forms = (config.claims_same_item, config.aligned_claims_same_item)
    for writer, held in WRITERS.items():
        others = {p: r for p, r in results.items() if p not in held}
        without, summary_without = fit_forms(others), fit_forms(others, claims=False)
        for pair in held:
            label, part = next(iter(halves(pair, results[pair].checked).items()))
            row = {"writer": writer, "pair": pair, "part": label, "items": len(part)}
            row["summary_only"] = seen_before(results[pair], part, summary, summary)
            row["forms_all_pairs"] = seen_before(results[pair], part, shipped, summary)
            row["summary_without_writer"] = seen_before(results[pair], part, summary_without, summary_without)
            row["forms_without_writer"] = seen_before(results[pair], part, without, summary_without)
            row["raw_judge_cosine_best"] = raw_best(results[pair], part, "judge_cosine")
            row["raw_use_cosine_best"] = raw_best(results[pair], part, "cosine")
            row["thresholds_without_writer"] = [f.threshold for f in without if f is not None]
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
