"""The dedupe config file: one per model, validated on load, named in models.txt."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import FAKE_DEDUPE

from kbsearch.dedupe.config_files import config_for, load_config, shipped_config_path
from kbsearch.dedupe.scorer import Scorer, fit_logistic
from kbsearch.errors import KbError
from kbsearch.models import load_models


def write_models(tmp_path: Path, line: str) -> Path:
    path = tmp_path / "models.txt"
    path.write_text(line + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("model", "judge"),
    [("use-multilingual-v3", "multilingual-e5-small"), ("use-multilingual-v3", None), ("multilingual-e5-small", None)],
)
def test_the_shipped_configs_load_and_say_where_they_came_from(model: str, judge: str | None) -> None:
    config = load_config(None, model, judge=judge)
    assert (config.model, config.judge) == (model, judge)
    aligned = [config.aligned_same_item] if config.aligned_same_item is not None else []
    assert bool(aligned) == (judge is not None)  # the default pair reads the judge's token alignment
    for scorer in (config.same_item, *aligned, config.claim_known):
        assert scorer.fitted_on and scorer.score  # which data, and what it scored where it was not fitted
        assert 0 < scorer.threshold < 1


def test_a_missing_config_names_the_model_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(KbError) as caught:
        load_config(None, "no-such-model")
    assert "no dedupe config for model 'no-such-model'" in caught.value.message
    assert "calibrate" in (caught.value.hint or "")
    with pytest.raises(KbError) as caught:
        load_config(tmp_path / "absent.json", "fake")
    assert caught.value.path == str(tmp_path / "absent.json")


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        (lambda c: c.update(same_item={**c["same_item"], "weights": [1.0]}), "one entry each"),
        (lambda c: c.update(claim_known={**c["claim_known"], "threshold": 1.5}), "threshold"),
        (lambda c: c.update(same_item={**c["same_item"], "features": ["cosine", "mood", "cross_lingual"]}), "mood"),
        (lambda c: c.update(same_item={**c["same_item"], "scales": [1.0, 0.0, 1.0]}), "positive"),
        (lambda c: c.pop("claim_known"), "claim_known"),
    ],
)
def test_a_malformed_config_is_a_clear_error(tmp_path: Path, change, complaint: str) -> None:  # type: ignore[no-untyped-def]
    config = json.loads(FAKE_DEDUPE.read_text())
    change(config)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(config))
    with pytest.raises(KbError) as caught:
        load_config(path, "fake")
    assert caught.value.message.startswith("bad dedupe config") and complaint in caught.value.message
    assert caught.value.path == str(path)
    path.write_text("{not json")
    with pytest.raises(KbError, match="bad dedupe config"):
        load_config(path, "fake")


def test_a_config_fitted_for_another_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(KbError) as caught:
        load_config(FAKE_DEDUPE, "use-multilingual-v3")
    assert "fitted for model 'fake'" in caught.value.message


def test_models_txt_names_a_config_file_or_another_models_config(tmp_path: Path) -> None:
    (tmp_path / "mine.json").write_text(FAKE_DEDUPE.read_text())
    path = write_models(tmp_path, "m  python:x:y dim=8 dedupe=mine.json\nn  python:x:y dedupe=multilingual-e5-small")
    mine, other = load_models(path)
    assert config_for(mine).model == "fake"  # the line's own file, whatever its model
    assert config_for(other) == load_config(shipped_config_path("multilingual-e5-small"), "multilingual-e5-small")
    with pytest.raises(KbError) as caught:
        load_models(write_models(tmp_path, "m  python:x:y cosine_shift=0.2"))
    assert caught.value.line == 1 and "unknown option" in caught.value.message


def test_the_scorer_is_a_logistic_regression_with_its_threshold() -> None:
    scorer = Scorer(
        features=["cosine"], weights=[2.0], means=[0.5], scales=[0.1], bias=-1.0, threshold=0.5, fitted_on="test"
    )
    assert scorer.probability({"cosine": 0.5}) == pytest.approx(1 / (1 + np.exp(1.0)))
    assert scorer.probability({"cosine": 0.55}) == pytest.approx(0.5)
    assert scorer.decide(0.5) and not scorer.decide(0.49)


def test_fitting_recovers_a_rule_the_data_follows() -> None:
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, size=(2000, 2))
    y = (x[:, 0] + 0.1 * rng.standard_normal(2000)) > 0.6  # the second column is noise
    scorer = fit_logistic(["cosine", "lexical"], x, y, fitted_on="synthetic")
    assert abs(scorer.weights[0]) > 10 * abs(scorer.weights[1])
    assert (
        scorer.probability({"cosine": 0.9, "lexical": 0.5})
        > 0.9
        > 0.1
        > scorer.probability({"cosine": 0.3, "lexical": 0.5})
    )
    with pytest.raises(ValueError, match="both answers"):
        fit_logistic(["cosine"], x[:, :1], np.zeros(2000), fitted_on="synthetic")


def test_a_row_of_weight_two_counts_as_that_row_twice() -> None:
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 1, size=(300, 2))
    y = (x[:, 0] + 0.3 * rng.standard_normal(300)) > 0.5
    twice = np.arange(300) < 100
    weighted = fit_logistic(["cosine", "lexical"], x, y, fitted_on="w", sample_weight=np.where(twice, 2.0, 1.0))
    copied = fit_logistic(["cosine", "lexical"], np.vstack([x, x[twice]]), np.concatenate([y, y[twice]]), fitted_on="c")
    plain = fit_logistic(["cosine", "lexical"], x, y, fitted_on="p")
    row = {"cosine": 0.55, "lexical": 0.4}
    # Standardisation reads the unweighted rows, so compare decisions, not coefficients.
    assert weighted.probability(row) == pytest.approx(copied.probability(row), abs=0.03)
    assert abs(weighted.probability(row) - plain.probability(row)) > abs(
        weighted.probability(row) - copied.probability(row)
    )


# Feature vectors a shipped form must decide one way, whatever refit comes next: a repeat
# (high cosines under both models, standing out from the other candidates, shared names and
# numbers) and an unrelated record of the same field (the "different" row is the features of
# a real non-match from the example corpus, stephen's TensorRT-LLM note against jay's benchmark).
SAME = {
    "cosine": 0.86, "cross_cosine": 0.0, "cross_lingual": 0.0, "relative": 0.30, "lexical": 0.55,
    "shared_names": 4.0, "shared_numbers": 2.0, "length_gap": 0.1, "top": 1.0,
    "judge_cosine": 0.97, "judge_relative": 0.06, "judge_top": 1.0,
    "aligned": 0.93, "aligned_relative": 0.08, "cross_aligned": 0.0, "cross_aligned_relative": 0.0,
}  # fmt: skip
SAME_ACROSS_LANGUAGES = {
    **SAME, "cosine": 0.74, "cross_cosine": 0.74, "cross_lingual": 1.0, "lexical": 0.0, "judge_cosine": 0.94,
    "cross_aligned": 0.90, "cross_aligned_relative": 0.07, "aligned": 0.90, "aligned_relative": 0.07,
}  # fmt: skip
DIFFERENT = {
    "cosine": 0.536, "cross_cosine": 0.536, "cross_lingual": 1.0, "relative": 0.08, "lexical": 0.0,
    "shared_names": 0.693, "shared_numbers": 0.0, "length_gap": 0.605, "top": 1.0,
    "judge_cosine": 0.867, "judge_relative": -0.019, "judge_top": 0.0,
    "aligned": 0.74, "aligned_relative": 0.0, "cross_aligned": 0.74, "cross_aligned_relative": 0.0,
}  # fmt: skip
CLAIM_SAID = {"cosine": 0.92, "cross_cosine": 0.0, "cross_lingual": 0.0, "lexical": 0.5}
CLAIM_SAID_ACROSS = {"cosine": 0.88, "cross_cosine": 0.88, "cross_lingual": 1.0, "lexical": 0.0}
CLAIM_UNSAID = {"cosine": 0.30, "cross_cosine": 0.0, "cross_lingual": 0.0, "lexical": 0.02}
# The judge's claim form reads e5's cosines, which sit higher: 0.8 is an unrelated sentence.
JUDGE_CLAIM_SAID = {"cosine": 0.98, "cross_cosine": 0.0, "cross_lingual": 0.0, "lexical": 0.5}
JUDGE_CLAIM_SAID_ACROSS = {"cosine": 0.96, "cross_cosine": 0.96, "cross_lingual": 1.0, "lexical": 0.0}
JUDGE_CLAIM_UNSAID = {"cosine": 0.80, "cross_cosine": 0.0, "cross_lingual": 0.0, "lexical": 0.02}


@pytest.mark.parametrize(("model", "judge"), [("use-multilingual-v3", "multilingual-e5-small")])
def test_the_shipped_forms_decide_plain_cases_the_plain_way(model: str, judge: str) -> None:
    """A scorer file zeroed or broken (weights all 0, bias -40) must not pass unnoticed."""
    config = load_config(shipped_config_path(model, judge), model, judge=judge)
    forms = [config.same_item] + ([config.aligned_same_item] if config.aligned_same_item else [])
    for form in forms:
        assert form.decide(form.probability(SAME)) and form.decide(form.probability(SAME_ACROSS_LANGUAGES))
        assert not form.decide(form.probability(DIFFERENT))
    claims = [(config.claim_known, CLAIM_SAID, CLAIM_SAID_ACROSS, CLAIM_UNSAID)]
    if config.judge_claim_known is not None:
        claims.append((config.judge_claim_known, JUDGE_CLAIM_SAID, JUDGE_CLAIM_SAID_ACROSS, JUDGE_CLAIM_UNSAID))
    for form, said, said_across, unsaid in claims:
        assert form.decide(form.probability(said)) and form.decide(form.probability(said_across))
        assert not form.decide(form.probability(unsaid))
