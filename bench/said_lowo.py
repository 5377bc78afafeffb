"""Leave one writer out for ``claim_said``: does the claim form carry to a writer it was not fitted on?

    python bench/said_lowo.py [--config F]

Reads the replays ``bench/eval_claims.py`` saved (run it first, all five
pairs; the evidence a claim keeps does not depend on the form's weights, so
any config's replay will do). For each dev writer (feed a in ``within``,
feed c in ``feed``, feed g in ``xling``, ``mixed`` and ``within-en``:
``claims_lowo.WRITERS``), ``claim_said`` is fitted as ``eval_claims.py --fit``
fits it, weights and threshold, on the fitting parts of the pairs that writer
does not write, and every claim and verdict of the pairs it does is decided
again (``--rescore``'s way) on their reported parts. Beside it, on the same
items: the config's form, and the form refitted on the fitting parts of all
five pairs (so fitted on that writer's earlier days). Feed a stays the known
side of most pairs, so "without writer a" still fits on claims weighed
against feed a's records.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from claims_lowo import WRITERS  # noqa: E402
from eval_claims import PAIRS, fit_said_form, halves, redecided, run_pair, scores  # noqa: E402
from eval_dedupe import Gate  # noqa: E402

from kbsearch.dedupe.config_files import config_for  # noqa: E402
from kbsearch.dedupe.replay import Checked, ReplayResult  # noqa: E402
from kbsearch.dedupe.scorer import Scorer  # noqa: E402


def measures(result: ReplayResult, part: list[Checked], form: Scorer) -> dict[str, object]:
    """The claim measures of ``part`` with every claim and verdict decided under ``form``."""
    found = scores(redecided(ReplayResult(checked=part, pairs=result.pairs), form))
    classes = found["clear_class_f1"]
    return {
        "threshold": form.threshold,
        "new_claims_clear": found["new_claims_clear"],
        "new_claims_all_f1": found["new_claims_all"]["f1"],  # type: ignore[index]
        "update_f1": classes["UPDATE"],  # type: ignore[index]
        "duplicate_f1": classes["DUPLICATE"],  # type: ignore[index]
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", help="the config whose claim_said is shown beside (default: the shipped one)")
    args = parser.parse_args()
    gate = Gate("use-multilingual-v3", judged=True)
    config = config_for(gate.spec, args.config)
    if config.claim_said is None:
        raise SystemExit("the config has no claim_said to compare with")
    results = {pair: run_pair(pair, gate, args.config, None, reuse=True) for pair in PAIRS}
    every_pair = fit_said_form(results)
    for writer, held in WRITERS.items():
        without = fit_said_form({p: r for p, r in results.items() if p not in held})
        for pair in held:
            label, part = next(iter(halves(pair, results[pair].checked).items()))
            row: dict[str, object] = {"writer": writer, "pair": pair, "part": label, "items": len(part)}
            row["config"] = measures(results[pair], part, config.claim_said)
            row["fitted_all_pairs"] = measures(results[pair], part, every_pair)
            row["fitted_without_writer"] = measures(results[pair], part, without)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
