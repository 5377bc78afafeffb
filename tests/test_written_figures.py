"""Messages show a figure as the claim writes it ("within 14 days"), not the key it is compared by
("2wk"); ``--json``'s ``new_numbers`` and ``extra_numbers`` keep the keys (``text/written_figures.py``)."""

from __future__ import annotations

import datetime as dt

import pytest

from kbsearch.dedupe.results import ClaimStatus, Match, Rule
from kbsearch.dedupe.verdict import decide
from kbsearch.records import Kind
from kbsearch.render.dedupe import _claim_lines
from kbsearch.text.textsim import substantive_numbers
from kbsearch.text.written_figures import as_written


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("Appeals are answered within 14 days of the filing", ["14 days"]),
        ("The audit flags unsafe replies at a mean rate of 0.46", ["0.46"]),
        ("去重后约剩百分之三十五的网页", ["百分之三十五"]),
        ("评测集含 2,400 道题，覆盖 12 种语言", ["12", "2,400"]),
        ("v3 清洗后保留约 340 万篇文档", ["340 万"]),
        ("Latency is 18-22% lower than the old kernel", ["18-22%", "22%"]),
        ("The window grows from 900 to 6k tokens", ["6k", "900"]),
    ],
)
def test_each_figure_as_the_claim_writes_it(text: str, written: list[str]) -> None:
    assert as_written(text, sorted(substantive_numbers(text))) == written


def test_a_figure_the_claim_writes_in_words_or_inside_a_name_is_shown_by_its_key() -> None:
    assert as_written("The new kernel decodes tenfold faster", ["10x"]) == ["10x"]
    assert as_written("Weights ship in FP8 for the new kernel", ["8bit"]) == ["8bit"]
    # Not a number before the name, stretched over it: "0.3 adds FP4" is no way to write FP4.
    assert as_written("FlashInfer 0.3 adds FP4 KV cache kernels", ["4bit"]) == ["4bit"]
    assert as_written("Decode rises 1.6x against FP8 at 32k context", ["1.6x", "8bit"]) == ["1.6x", "8bit"]


def _claim(text: str, new: list[str], extra: list[str] | None = None) -> ClaimStatus:
    return ClaimStatus(
        text=text, known=not new, score=0.6, threshold=0.08, best_id="ann/2026-11-02#1", new_numbers=new,
        extra_numbers=extra or [],
    )  # fmt: skip


def test_an_update_reason_shows_the_new_figure_as_written() -> None:
    match = Match(
        id="ann/2026-11-02#1", kind=Kind.increment, title="t", instance="ann", date=dt.date(2026, 11, 2), score=0.9,
        lexical=0.1, probability=0.9, threshold=0.45, same_item=True, rule=Rule.learned,
    )  # fmt: skip
    claims = [_claim("Appeals are now answered within 14 days", ["2wk"])]
    _, reason = decide([match], claims)
    assert "(new numbers: 14 days)" in reason
    assert claims[0].model_dump()["new_numbers"] == ["2wk"]  # --json keeps the key


def test_a_claim_line_shows_new_and_detail_figures_as_written() -> None:
    line = _claim_lines(_claim("Appeals are now answered within 14 days by 3,200 reviewers", ["2wk"], ["3.2k"]))[0]
    assert "[new numbers: 14 days]" in line
    assert "[also: 3,200]" in line
