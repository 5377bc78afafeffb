"""Would check's relative features gain, read against the candidate's language only?

    python bench/language_neighbourhood.py [--config F]

Reads the replays ``bench/eval_claims.py`` saved (all five pairs). A pair's
relative features are its score minus the mean over the item's nearest
candidates (``DedupeConfig.neighbourhood``). In a store of both languages an
item's nearest records are mostly of its own language, and texts of one
language align better with each other than with a retelling in the other, so a
true record in the other language can sink below that mean (issue 25). Audit
already reads a pair across languages against records of the earlier record's
language; this re-reads check's kept pairs the same way, without a replay:

- ``aligned``: ``aligned_relative`` (and ``cross_aligned_relative``) against the
  mean alignment of the item's aligned candidates in the known record's language
  (the alignments are in the replay: check aligns its nearest candidates only);
- ``all``: beside that, ``relative`` and ``judge_relative`` replaced by
  ``language_relative`` and ``language_judge_relative`` (already in the replay).

For each reading, the two key-point forms are refitted as ``eval_claims.py
--fit-items`` fits them (each pair's fitting part) and every item is re-decided
from the kept pairs as ``bench/claims_lowo.py`` does (so check's "one item, not
two" step is not re-run); rows: the reported part of each pair, fitted on all
five pairs, then leaving writer g (xling, mixed, within-en) out. ``shipped`` is
the config's forms on the replay's own features. Only the candidates check kept
are read: a language with one aligned candidate gives it a relative of 0, where
check could fetch more of that language.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from claims_lowo import WRITERS, fit_forms, seen_before  # noqa: E402
from eval_claims import PAIRS, halves, run_pair  # noqa: E402
from eval_dedupe import Gate  # noqa: E402

from kbsearch.dedupe.config_files import config_for  # noqa: E402
from kbsearch.dedupe.replay import PairExample, ReplayResult  # noqa: E402


def _mean_best(values: list[float], k: int) -> float:
    best = sorted(values, reverse=True)[:k]
    return sum(best) / len(best) if best else 0.0


def reread(result: ReplayResult, reading: str, k: int) -> ReplayResult:
    """The replay with its pairs' relative features read against the known record's language."""
    if reading == "replayed":
        return result
    by_item: dict[str, list[PairExample]] = defaultdict(list)
    for pair in result.pairs:
        by_item[pair.item].append(pair)
    pairs = []
    for mine in by_item.values():
        aligned = [p for p in mine if "aligned" in p.features]
        around = {
            cross: _mean_best([p.features["aligned"] for p in aligned if p.features["cross_lingual"] == cross], k)
            for cross in (0.0, 1.0)
        }
        for pair in mine:
            features = dict(pair.features)
            if "aligned" in features:
                relative = features["aligned"] - around[features["cross_lingual"]]
                features["aligned_relative"] = relative
                features["cross_aligned_relative"] = relative if features["cross_lingual"] else 0.0
            if reading == "all" and "language_relative" in features:
                features["relative"] = features["language_relative"]
                if "language_judge_relative" in features:
                    features["judge_relative"] = features["language_judge_relative"]
            pairs.append(pair.model_copy(update={"features": features}))
    return result.model_copy(update={"pairs": pairs})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", help="the config whose forms were replayed (default: the shipped one)")
    parser.add_argument("--readings", default="replayed,aligned,all")
    args = parser.parse_args()
    gate = Gate("use-multilingual-v3", judged=True)
    config = config_for(gate.spec, args.config)
    summary = (config.same_item, config.aligned_same_item)
    shipped = (config.claims_same_item, config.aligned_claims_same_item)
    replayed = {pair: run_pair(pair, gate, args.config, None, reuse=True) for pair in PAIRS}
    for pair, result in replayed.items():
        label, part = next(iter(halves(pair, result.checked).items()))
        row = {"reading": "shipped", "fitted": "config", "pair": pair, "part": label, "items": len(part)}
        print(json.dumps({**row, **seen_before(result, part, shipped, summary)}), flush=True)
    for reading in args.readings.split(","):
        results = {pair: reread(r, reading, config.neighbourhood) for pair, r in replayed.items()}
        fits: dict[str, tuple[dict[str, ReplayResult], Iterable[str]]] = {"all pairs": (results, PAIRS)}
        for writer, held in WRITERS.items():
            fits[f"without {writer}"] = ({p: r for p, r in results.items() if p not in held}, held)
        for fitted, (fit_on, scored) in fits.items():
            forms = fit_forms(fit_on)
            for pair in scored:
                label, part = next(iter(halves(pair, results[pair].checked).items()))
                row = {"reading": reading, "fitted": fitted, "pair": pair, "part": label, "items": len(part)}
                row |= seen_before(results[pair], part, forms, summary)
                row["thresholds"] = [f.threshold for f in forms if f is not None]
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
