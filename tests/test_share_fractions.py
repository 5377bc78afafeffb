"""A share written as a decimal fraction is the percentage another writer gives (``text/shares.py``):
"a refusal rate of 0.62" is "拒答率 62%", "0.35 of the pages" is 百分之三十五. A bare decimal that
is no share keeps its digits, so it never meets another text's percentage of something else."""

from __future__ import annotations

import pytest

from kbsearch.text.quantities import new_figures, unstated
from kbsearch.text.textsim import numbers, substantive_numbers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The probe flags deceptive answers at a mean rate of 0.62", {"62%"}),
        ("Filtering keeps roughly 0.35 of the crawled pages", {"35%"}),
        ("A second pass lowers the false positive rate to 0.08.", {"8%"}),
        ("The refusal rate falls from 0.44 to 0.09 after the patch", {"44%", "9%"}),
        ("越狱成功率降到 0.27，仍高于基线", {"27%"}),
        ("代码数据占比 0.3", {"30%"}),
        ("Top-1 accuracy 0.81 on the held-out split", {"81%"}),
        # "of" a whole, with or without "the": total, overall, a single …
        ("Preemptions cost 0.17 of total GPU hours last quarter", {"17%"}),
        ("Retries account for 0.21 of overall request latency", {"21%"}),
        ("Each replica gets 0.25 of a node", {"25%"}),
    ],
)
def test_a_fraction_given_for_a_share_is_its_percentage(text: str, expected: set[str]) -> None:
    assert numbers(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The validation loss drops to 0.62 after 2T tokens", {"0.62", "2t"}),
        ("The effect is significant (p-value of 0.03 of all seeds)", {"0.03"}),
        ("Loss falls as a power law with an exponent of 0.35 of the compute", {"0.35"}),
        ("Inference costs $0.35 of compute per thousand queries", {"0.35"}),
        ("Trained with a learning rate of 0.0003 and dropout rate 0.1", {"0.0003", "0.1"}),
        ("Sampling at temperature 0.7 for every rate of 0.5 tokens per step", {"0.7", "0.5"}),
        ("人民币汇率 0.14，学习率 0.001", {"0.14", "0.001"}),
        ("Upgrading to Kiwiserve 0.35 of the series", set()),
        # A measure of a share, or a symbol given a value, is no share.
        ("The fitted exponent for the code share is 0.34", {"0.34"}),
        ("代码占比的拟合指数 α = 0.34", {"0.34"}),
        # A share's change is no share: a 0.12 gain in recall, read as 12%, would be a 12% rise.
        ("Retrieval improves recall by about 0.12 over the baseline", {"0.12"}),
        ("重排后平均提升召回率 0.12", {"0.12"}),
        ("拒答率只上升 0.05 个百分点", {"0.05"}),
        ("The gap narrows by 0.4 of total budget", {"0.4"}),
        ("Retention rises 0.3 of a percentage point", {"0.3"}),
        ("The training loss of 0.21 of total steps", {"0.21"}),
        # A fraction of a unit of time is a duration, which another writer gives in ms or days.
        ("The cache warms in 0.5 of a second", {"0.5"}),
        ("Failover takes about 0.25 of a day", {"0.25"}),
        # A share's word belongs to its own figure, not to the next one's (recall, then a Dice score).
        ("召回率（0.61 vs. 0.66）和 Dice 分数（0.42 vs. 0.47）", {"61%", "66%", "0.42", "0.47"}),
    ],
)
def test_a_fraction_that_is_no_share_keeps_its_digits(text: str, expected: set[str]) -> None:
    assert numbers(text) == expected


def test_a_share_as_a_fraction_is_stated_by_the_percentage_either_way() -> None:
    """Either writer may use the fraction: the claim restates the record's figure, nothing new."""
    fraction, percent = "Jailbreaks succeed at an average rate of 0.58", "越狱攻击的平均成功率为 58%"
    assert unstated(substantive_numbers(fraction), substantive_numbers(percent)) == set()
    assert unstated(substantive_numbers(percent), substantive_numbers(fraction)) == set()
    spelled = "去重后约剩百分之三十五的网页"
    assert unstated(substantive_numbers("Dedup keeps about 0.35 of the pages"), substantive_numbers(spelled)) == set()


def test_a_loss_is_no_percentage_of_a_record() -> None:
    """A loss of 0.58 against a record's 58% success rate is another figure: new, not restated."""
    record = substantive_numbers("越狱攻击的平均成功率为 58%")
    assert new_figures(substantive_numbers("Fine-tuning brings the eval loss to 0.58"), record) == ["0.58"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A rate's acronym in capitals names a share as its words do (probe 46: "TPR 0.991 at an
        # FPR of 0.001" is 误报率 0.1% 时检出率 99.1%).
        ("The detector reaches TPR 0.987 at an FPR of 0.002", {"98.7%", "0.2%"}),
        ("Jailbreak ASR fell from 0.38 to 0.05 after the filter", {"38%", "5%"}),
        ("WER 0.064 on the accented split", {"6.4%"}),
        # Not a rate's acronym: lower case, or the letters inside a longer word
        ("tpr 0.987 in the log", {"0.987"}),
        ("FARM 0.3 release notes", {"0.3"}),
    ],
)
def test_a_rate_named_by_its_acronym_gives_a_share(text: str, expected: set[str]) -> None:
    assert numbers(text) == expected


def test_a_rate_by_acronym_meets_the_percentage_another_writer_gives() -> None:
    record = numbers("签名检测在误报率 0.2% 时检出率达到 98.7%")
    assert unstated(numbers("TPR 0.987 at an FPR of 0.002"), record) == set()
