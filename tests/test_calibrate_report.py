"""What calibrate's report tells a writer fitting the gate on a few days of their own
(probe 22): which held-out errors a fixed rule settled (no fit changes them), a
threshold the data cannot place, and what the starting config scored on the same part."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from conftest import FAKE_DEDUPE
from test_calibrate_unfitted import PAIRS

from fake_encoder import FakeEncoder
from kbsearch.dedupe.calibrate import _notes, fit_claims, fit_same_item
from kbsearch.dedupe.calibrate_results import Calibration
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.features import INDEX_FEATURES
from kbsearch.dedupe.replay import Checked, PairExample, ReplayResult
from kbsearch.dedupe.results import Rule, Verdict
from kbsearch.render import calibration_text

EARLY, LATE = dt.date(2026, 9, 1), dt.date(2026, 9, 2)


def _pair(item: str, day: dt.date, value: float, same: bool, rule: Rule = Rule.learned) -> PairExample:
    features = dict.fromkeys(INDEX_FEATURES, value)
    return PairExample(item=item, known=f"k-{item}", date=day, features=features, same=same, rule=rule,
                       exact_same=same if rule is Rule.learned else False)  # fmt: skip


def _checked(item: str, day: dt.date, seen: bool) -> Checked:
    return Checked(id=item, date=day, seen_before=seen, verdict=Verdict.NEW, candidate_found=True)


def _stream() -> ReplayResult:
    """Day 1: repeats close, new items far. Day 2: two repeats whose only known record the
    names rule set apart though they look alike (as in the probe), and one the fit decides."""
    pairs, checked = [], []
    for n in range(12):
        seen = n % 2 == 0
        pairs.append(_pair(f"a{n}", EARLY, 0.9 if seen else 0.1 + 0.01 * n, seen))
        checked.append(_checked(f"a{n}", EARLY, seen))
    for n in range(2):
        pairs.append(_pair(f"r{n}", LATE, 0.95, True, Rule.different_names))
        checked.append(_checked(f"r{n}", LATE, True))
    pairs.append(_pair("l0", LATE, 0.9, True))
    checked.append(_checked("l0", LATE, True))
    return ReplayResult(checked=checked, pairs=pairs)


def _report(**fit: object) -> str:
    fitted = fit_same_item([_stream()], EARLY, "one stream", **fit)  # type: ignore[arg-type]
    config = DedupeConfig.model_validate_json(FAKE_DEDUPE.read_text(encoding="utf-8"))
    return calibration_text(Calibration(model="fake", fitted=[fitted], config=config))


def test_held_out_misses_a_fixed_rule_settled_are_counted_apart() -> None:
    """All the probe's held-out misses were the names rule overriding a learned 1.00:
    refitting cannot move them, and the report must say so."""
    found = fit_same_item([_stream()], EARLY, "one stream")
    assert found.held_out_errors is not None
    assert found.held_out_errors.missed == 2 and found.held_out_errors.false_matches == 0
    assert found.held_out_errors.by_rule == {"different_names": 2}
    assert (
        "held out: 2 missed repeats and 0 false matches; 2 of them settled by a fixed rule "
        "(different_names 2), which no fit changes" in _report()
    )


def test_a_threshold_at_the_edge_of_the_grid_is_flagged() -> None:
    """The probe fitted same_item 0.05 and aligned_same_item 0.10 from 15-30 items: F1 is
    near flat there, and a threshold at the grid's bottom is one the data cannot place."""
    found = fit_same_item([_stream()], EARLY, "one stream")
    assert not [n for n in _notes([found], []) if "edge of the grid" in n]
    low = found.model_copy(update={"scorer": found.scorer.model_copy(update={"threshold": 0.05})})
    (note,) = [n for n in _notes([low], []) if "edge of the grid" in n]
    assert note.startswith("same_item's threshold 0.05 is at the edge of the grid (a step or less from 0.05 or 0.95)")
    for threshold, flagged in ((0.10, True), (0.15, False), (0.85, False), (0.90, True), (0.95, True)):
        moved = found.model_copy(update={"scorer": found.scorer.model_copy(update={"threshold": threshold})})
        assert any("edge of the grid" in n for n in _notes([moved], [])) is flagged, threshold
    assert "the data cannot place it" in note and "role both" in note


def test_the_starting_configs_score_on_the_held_out_part_stands_beside_the_fit() -> None:
    """ "Did this help?" in one run: the starting decision scored on the same later days."""
    start = DedupeConfig.model_validate_json(FAKE_DEDUPE.read_text(encoding="utf-8")).same_item
    found = fit_same_item([_stream()], EARLY, "one stream", start=start)
    assert found.held_out is not None and found.start_held_out is not None
    assert found.start_held_out.examples == found.held_out.examples == 3
    # The fake config reads cosine + lexical >= 1: l0 (0.9 + 0.9) is seen, r0 and r1 the rule sets apart.
    assert found.start_held_out.recall == 0.3333
    text = _report(start=start)
    assert "start            3  1.000  0.333  0.500  the starting config, on the same held-out part" in text
    assert "start " not in _report(), "no starting decision, no row"
    placeholder = start.model_copy(update={"weights": [0.0, 0.0, 0.0]})
    assert fit_same_item([_stream()], EARLY, "one stream", start=placeholder).start_held_out is None


def test_the_claim_decisions_test_pairs_are_scored_by_the_starting_one_too(tmp_path: Path) -> None:
    start = DedupeConfig.model_validate_json(FAKE_DEDUPE.read_text(encoding="utf-8")).claim_known
    fit, test = tmp_path / "fit.tsv", tmp_path / "test.tsv"
    fit.write_text(PAIRS + "FP8 kernels run fast\tthe KV cache fits in two bits\t0\n", encoding="utf-8")
    test.write_text(PAIRS, encoding="utf-8")
    found = fit_claims([fit], [test], FakeEncoder(), start=start)
    assert found.start_held_out is not None and found.start_held_out.examples == 2
    assert fit_claims([fit], [], FakeEncoder(), start=start).start_held_out is None
