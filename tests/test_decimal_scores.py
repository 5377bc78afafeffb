"""A score written as a decimal is the figure another writer writes as a percentage
(``text/decimal_scores.py``, probe 50: "scores 0.768 … above the 0.74 baseline" was new against
"总分 76.8% … 基线（74%）"). A decimal given for what no percentage measures, a decimal of one
digit and a version keep their digits. Own fixtures: a triage model, a retina screener."""

from __future__ import annotations

import pytest
from test_claim_said import ALWAYS, record, said

from kbsearch.text.decimal_scores import other_scale, score_decimals
from kbsearch.text.quantities import figure_readings, new_figures, unstated
from kbsearch.text.textsim import numbers, substantive_numbers


def _unstated(claim: str, record: str) -> set[str]:
    return unstated(substantive_numbers(claim), substantive_numbers(record), figure_readings(claim))


def _new(claim: str, record: str) -> list[str]:
    return new_figures(substantive_numbers(claim), substantive_numbers(record), (), figure_readings(claim))


@pytest.mark.parametrize(
    ("number", "other"),
    [
        ("0.812", "81.2%"), ("81.2%", "0.812"), ("0.0125", "1.25%"), ("6.4%", "0.064"), ("0.79", "79%"),
        # one significant digit, a whole, and what is no bare decimal or percentage
        ("0.5", None), ("50%", None), ("5%", None), ("100%", None), ("0.5b", None), ("1.5", None), ("0.94x", None),
    ],
)  # fmt: skip
def test_a_decimal_and_its_percentage_are_each_others_other_scale(number: str, other: str | None) -> None:
    assert other_scale(number) == other


@pytest.mark.parametrize(
    ("claim", "record"),
    [
        ("TriageLM averages 0.812 on WardBench, the first model above the 0.79 nurse baseline",
         "TriageLM 在 WardBench 平均得分 81.2%，首次超过护士基线（79%）"),
        ("RetinaScan reaches AUROC 0.936 on the held-out clinics", "RetinaScan 在外部诊所上的 AUROC 为 93.6%"),
        ("阳性预测值 62%，告警由中央团队复核", "positive predictive value 0.62 on the pilot wards"),
        ("特异性 88.5%，敏感性 91.2%", "specificity of 0.885 and sensitivity of 0.912 across sites"),
    ],
)  # fmt: skip
def test_a_score_as_a_decimal_is_the_records_percentage_either_way(claim: str, record: str) -> None:
    assert _unstated(claim, record) == set()


@pytest.mark.parametrize(
    ("claim", "record", "decimal"),
    [
        ("Fine-tuning brings the validation loss to 0.64", "召回率 64%", "0.64"),
        ("Spearman ρ 0.71 against clinician ratings", "71% of ratings agree", "0.71"),
        ("Agreement r = 0.83 between readers", "83% of scans", "0.83"),
        ("Each scan costs $0.35 to screen", "35% fewer scans", "0.35"),
        ("The lesion cut-off is 0.47 mm", "47% of lesions", "0.47"),
        ("Recall improves by 0.12 on night shifts", "召回率 12%", "0.12"),
        ("召回率平均提升 0.15", "召回率 15%", "0.15"),
        ("Trained with a learning rate of 0.25", "25% 的数据", "0.25"),
    ],
)
def test_a_decimal_given_for_no_score_is_no_percentage_of_the_record(claim: str, record: str, decimal: str) -> None:
    assert decimal in _unstated(claim, record)
    assert decimal not in score_decimals(claim)


def test_one_digit_sizes_and_versions_are_no_scores() -> None:
    # one significant digit: a threshold, not the record's half of the alerts
    assert _unstated("An alert fires above a score of 0.5", "50% of alerts") == {"0.5"}
    assert _unstated("A 0.5B-parameter triage model", "50% of cases") == {"500m"}
    # RetinaScan 0.94 is a version: the claim's 94% is a new figure, not the version restated
    assert _new("screening accuracy 94%", "RetinaScan 0.94 ships with screening accuracy 90%") == ["94%"]


def test_a_changed_score_on_the_other_scale_is_a_changed_figure() -> None:
    """A claim that restates the record's baseline on the decimal scale gives its changed score
    so too: 0.834 is the record's 81.2% changed, not detail beside the restated 0.79."""
    record = "TriageLM 在 WardBench 平均得分 81.2%，超过护士基线（79%）"
    assert _new("TriageLM averages 0.834 on WardBench, above the 0.79 nurse baseline", record) == ["0.834"]
    english = "TriageLM averages 0.812 on WardBench, above the 0.79 nurse baseline"
    assert _new("TriageLM 在 WardBench 平均得分 83.4%，超过护士基线（79%）", english) == ["83.4%"]


def test_a_share_that_ends_its_line_is_read_as_at_the_texts_end() -> None:
    """A record's key point ends its line: "accuracy 0.91" there is the 91% its own point reads
    (probe 50 had the record read 0.91 and its own key point 91%)."""
    record = "Screening: referable-retinopathy accuracy 0.91\nAvailability: research API only"
    assert numbers(record) == {"91%"}
    assert numbers("Screening: referable-retinopathy accuracy 0.91") == {"91%"}


def test_a_key_point_retold_on_the_other_scale_is_known_with_no_detail() -> None:
    known = record("zh", "TriageLM 登顶 WardBench", "结果：TriageLM 在 WardBench 平均得分 81.2%，超过护士基线（79%）")
    retold = "Result: TriageLM averages 0.812 on WardBench, above the 0.79 nurse baseline"
    status = said(retold, known, same={"zh"}, shape=ALWAYS)
    assert status.known and not status.extra_numbers  # type: ignore[attr-defined]
    changed = said(retold.replace("0.812", "0.834"), known, same={"zh"}, shape=ALWAYS)
    assert not changed.known and changed.new_numbers == ["0.834"]  # type: ignore[attr-defined]
