"""Two titles leading with one coined name, one giving the maker beside it, the other naming what
it adds, are not set apart when both records' sources give that maker (``sourced_names``).

Probe 45: a weather model's first report, titled with its lab beside its name, and an English
retelling of its rescoring, naming the lab only in its 来源 line and the reanalysis in its title,
were "each title names what the other never mentions". The fixtures are written here."""

from __future__ import annotations

from support.embedded import judged_rare

from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.sourced_names import coined_head, source_names
from kbsearch.records import Kind, Record


def record(rid: str, title: str, text: str, sources: list[str]) -> Record:
    return Record(id=rid, kind=Kind.increment, date="2026-11-02", title=title, text=text, sources=sources)


FIRST = record(
    "ana/2026-11-02#2",
    "TideLoom — Ostrava 海洋实验室的近岸潮位预报模型",
    "逐小时滚动的近岸潮位模型，72 小时预报的均方根误差比 HARMO-9 低 18%。",
    ["Ostrava Ocean Lab 技术报告（2026-11）"],
)
RESCORED = record(
    "bo/2026-11-04#3",
    "TideLoom skill rescored against GLORYS-Q",
    "Rescored on GLORYS-Q, TideLoom's 72-hour error is 15% below HARMO-9 (18% in the first report).",
    ["Ostrava Ocean Lab revised report (2026-11-04)"],
)


def test_the_maker_both_sources_give_is_no_system_of_its_own() -> None:
    for one, other in ((RESCORED, FIRST), (FIRST, RESCORED)):
        rule, _, reason = judged_rare(one, other)
        assert rule is not Rule.different_names, reason


def test_a_maker_only_one_source_gives_still_sets_them_apart() -> None:
    elsewhere = RESCORED.model_copy(update={"sources": ["Coastal modelling newsletter (2026-11-04)"]})
    rule, same, reason = judged_rare(elsewhere, FIRST)
    assert (rule, same) == (Rule.different_names, False), reason


def test_two_systems_of_one_lab_stay_apart() -> None:
    """Both sources give the lab; the titles lead with different names."""
    other = record(
        "bo/2026-11-04#4",
        "SurgeKite skill rescored against GLORYS-Q",
        "SurgeKite, the lab's storm-surge model, now beats HARMO-9 by 11% at 48 hours.",
        ["Ostrava Ocean Lab revised report (2026-11-04)"],
    )
    rule, same, reason = judged_rare(other, FIRST)
    assert (rule, same) == (Rule.different_names, False), reason


def test_heads_and_source_names() -> None:
    assert coined_head("TideLoom skill rescored") == "tideloom"
    assert coined_head("Ostrava lab rescores its model") is None  # a plain word names no system by shape
    assert "ostrava" in source_names(["Ostrava Ocean Lab report"])
    # A labelled dependency is not where the item comes from.
    assert "glorys" not in source_names(["arXiv:2611.01234；based on: GLORYS reanalysis (arXiv:2609.00001)"])
