"""A figure a claim quotes as another source's, to set its own against (``text/quoted_figures.py``,
probe 50): "减少 22 分钟，厂商口径为 38 分钟" gives a second figure of the quantity a record gives
as 38 minutes, and "against the vendor's 38" leaves out the unit of the figure before it.
Own fixtures: a clinic's wait times, an inference server."""

from __future__ import annotations

import pytest
from test_claim_said import ALWAYS, record, said

from kbsearch.records import Kind
from kbsearch.text.quantities import set_against
from kbsearch.text.textsim import numbers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Wait times fell 14 minutes per visit, against the vendor's 25", {"14min", "25min"}),
        ("每次就诊节省 14 分钟，低于厂商宣称的 25", {"14min", "25min"}),
        ("每次就诊节省 14 分钟，而非 25", {"14min", "25min"}),
        ("Throughput rose 3.1x, compared with the maker's 4", {"3.1x", "4x"}),
        ("Failover takes 40 ms versus 65", {"40ms", "65ms"}),
    ],
)
def test_a_figure_set_against_another_takes_the_unit_it_leaves_out(text: str, expected: set[str]) -> None:
    assert numbers(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Accuracy rose to 81%, against 12 baselines", {"81%", "12"}),  # it counts baselines
        ("Under 2% of the compute, FID 2.41 vs. 2.29", {"2%", "2.41", "2.29"}),  # the figure before is bare
        ("提速 10 倍，误差低于 0.08", {"10x", "0.08"}),  # a bound of another quantity
        ("Visits grew 38% in 2025, against 2024", {"38%", "2025", "2024"}),  # a year
        ("Wait times fell 14 minutes. The vendor's 25 is older", {"14min", "25"}),  # another sentence
        ("Raised $38M, against the maker's 12", {"38m", "12"}),  # a magnitude reads with what follows it
    ],
)
def test_a_bare_figure_keeps_its_digits_unless_set_against_one_with_a_unit(text: str, expected: set[str]) -> None:
    assert numbers(text) == expected


def test_a_sources_figure_is_one_the_text_sets_its_own_against() -> None:
    assert set_against("每次就诊节省 14 分钟，厂商口径为 25 分钟") == {"25min"}
    assert set_against("每次就诊节省 14 分钟，厂商公布的是 25 分钟") == {"25min"}
    assert "25min" in set_against("Visits are 14 minutes shorter, against the vendor's 25")
    assert set_against("每次就诊节省 14 分钟，覆盖 25 个科室") == set()


SECTION = record("doc", "§3.2 门诊部署", "厂商公布：每次就诊节省 25 分钟，覆盖 12 个科室", kind=Kind.doc_section)


def test_a_claim_setting_its_own_figure_against_a_sections_is_new() -> None:
    """The section gives the vendor's 25 minutes; an independent 14 minutes beside it is a
    second figure of that quantity, not detail of the section's (probe 50)."""
    status = said("独立测算：每次就诊节省 14 分钟，厂商口径为 25 分钟", SECTION, same=set(), shape=ALWAYS)
    assert not status.known and status.new_numbers == ["14min"]  # type: ignore[attr-defined]
    # the section's own figure alone is known from it
    assert said("厂商口径：每次就诊节省 25 分钟", SECTION, same=set(), shape=ALWAYS).known  # type: ignore[attr-defined]


def test_a_retelling_that_leaves_the_unit_out_is_known() -> None:
    """The English retelling's "the vendor's 25" is the Chinese record's 25 minutes."""
    known = record("zh", "门诊候诊", "独立测算：每次就诊节省 14 分钟，厂商口径为 25 分钟")
    status = said("Visits were 14 minutes shorter each, against the vendor's 25", known, same={"zh"}, shape=ALWAYS)
    assert status.known and not status.new_numbers and not status.extra_numbers  # type: ignore[attr-defined]
