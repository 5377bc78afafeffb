"""A name a record writes only in a key point recalling another item as background is no mention
of it for the names rules (``background.recalled_only``), and a regulator (FDA, NMPA) is no
system (``named_systems.systems_only``).

Probe 50: a vendor's second device, whose key points ended "Background: the same vendor's
<first device> … was cleared on …", named the first device through that point alone, so no
names rule set it apart from the first device's record, and explain, similar and a later day's
check joined the two (learned 1.00). The fixtures are written here."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.checking import check_one
from support.embedded import CONFIG, ENCODER, judged

from kbsearch.dedupe.background import background_points, blanked, recalled_only
from kbsearch.dedupe.named_systems import systems_only
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded, different_names
from kbsearch.records import Kind, Record


def increment(rid: str, title: str, text: str, claims: list[str], date: str = "2026-12-02") -> Record:
    return Record(id=rid, kind=Kind.increment, date=date, title=title, text=text, claims=claims)  # type: ignore[arg-type]


FIRST = increment(
    "ana/2026-12-01#2",
    "NoduLens cleared as a lung-nodule reading aid for chest scans",
    "Corvane Imaging's NoduLens went through the 510(k) pathway on 2026-10-20 as a reading aid for lung nodules.",
    [
        "Clearance: 510(k) K261107, dated 2026-10-20, for Corvane Imaging's NoduLens",
        "Reader study: sensitivity rose from 79% to 88% with the tool",
    ],
    "2026-12-01",
)
FIRST_ZH = increment(
    "bo/2026-12-01#1",
    "NoduLens 获批：Corvane 的肺结节辅助阅片软件",
    "Corvane Imaging 的 NoduLens 于 2026-10-20 通过 510(k)，用于肺结节辅助阅片。",
    ["批准：510(k) K261107，2026-10-20", "读片研究：敏感度由 79% 升至 88%"],
    "2026-12-01",
)
SECOND = increment(
    "ana/2026-12-03#4",
    "RibWatch-FRX — Corvane's rib-fracture triage tool for X-ray cleared",
    "A second Corvane Imaging device cleared within two months: RibWatch-FRX looks for rib fractures on "
    "X-rays and moves suspected cases up the reading worklist.",
    [
        "Clearance: 510(k) K263344, dated 2026-12-01, under the triage product code",
        "Standalone performance: sensitivity 91.2% and specificity 88.7% on 940 studies",
        "Background: the same vendor's NoduLens, a lung-nodule reader, was cleared on 2026-10-20",
    ],
    "2026-12-03",
)
SECOND_ZH = increment(
    "bo/2026-12-04#2",
    "RibWatch 获 FDA 批准：Corvane 的 X 光肋骨骨折分诊软件",
    "Corvane Imaging 的 RibWatch 通过 510(k)（K263344），在 X 光片上识别肋骨骨折并把疑似病例排到读片队列前面。",
    [
        "批准：510(k) K263344，2026-12-01",
        "性能：敏感度 91.2%，特异度 88.7%，940 例",
        "背景：同厂商的 NoduLens 于 2026-10-20 获批",
    ],
    "2026-12-04",
)
SECOND_EN = increment(
    "cy/2026-12-04#3",
    "FDA clears Corvane's RibWatch-FRX for rib-fracture triage",
    "Corvane Imaging's RibWatch-FRX flags rib fractures on X-rays; 510(k) K263344.",
    ["Clearance: K263344 on 2026-12-01", "Background: Corvane's NoduLens was cleared in October"],
    "2026-12-04",
)

YOUNG, GROWN = (lambda name: 1), (lambda name: 50)
"""How many records hold a name: every name rare (a young index), or every name common."""


def said(a: Record, b: Record, count: object) -> str | None:
    """The names rule's reason for the pair, read as check, explain and similar read it."""
    pair = Embedded(a, ENCODER.encode(a.passages())), Embedded(b, ENCODER.encode(b.passages()))
    found = different_names(*pair, CONFIG, count)  # type: ignore[arg-type]
    return None if found is None else found[2]


@pytest.mark.parametrize("count", [YOUNG, GROWN], ids=["young", "grown"])
@pytest.mark.parametrize("second", [SECOND, SECOND_ZH], ids=["en", "zh"])
@pytest.mark.parametrize("first", [FIRST, FIRST_ZH], ids=["en", "zh"])
def test_a_device_recalling_another_as_background_is_another_item(first: Record, second: Record, count: object) -> None:
    for a, b in ((second, first), (first, second)):
        rule, same, reason = judged(a, b, count)  # type: ignore[arg-type]
        assert (rule, same) == (Rule.different_names, False), reason
        assert "nodulens" in reason, reason


@pytest.mark.parametrize("count", [YOUNG, GROWN], ids=["young", "grown"])
def test_retellings_with_and_without_the_suffix_stay_joinable(count: object) -> None:
    # In the other language without the suffix, with the regulator in the title; in English, led by it.
    for retelling in (SECOND_ZH, SECOND_EN):
        assert said(SECOND, retelling, count) is None
        assert said(retelling, SECOND, count) is None
    assert said(SECOND_ZH, SECOND_EN, count) is None


def test_a_name_written_outside_the_background_point_is_a_mention() -> None:
    stacked = SECOND.model_copy(update={"text": SECOND.text + " It runs on the NoduLens reading platform."})
    assert "nodulens" not in recalled_only(stacked.title, stacked.text, stacked.claims)
    assert said(stacked, FIRST, GROWN) is None  # it names NoduLens as its own platform: the learned decision weighs it


def test_what_a_record_recalls_and_what_it_says() -> None:
    assert {"nodulens", "lung"} <= recalled_only(SECOND.title, SECOND.text, SECOND.claims)
    assert "ribwatch" not in recalled_only(SECOND.title, SECOND.text, SECOND.claims)
    assert "nodulens" in recalled_only(SECOND_ZH.title, SECOND_ZH.text, SECOND_ZH.claims)
    points = background_points([c.strip() for c in SECOND.claims], SECOND.title)
    assert "NoduLens" not in blanked(SECOND.text, points) and len(SECOND.claims) - len(points) == 2
    # A record whose points are all background keeps them: they are all it says.
    relisted = ["Background: NoduLens was cleared on 2026-10-20"]
    assert recalled_only("Veridex weekly recap", "", relisted) == frozenset()
    assert background_points(relisted, "Veridex weekly recap") == frozenset()


def test_a_regulator_is_no_system() -> None:
    assert systems_only(frozenset({"fda", "nmpa", "ema", "ribwatch"})) == {"ribwatch"}


def test_check_on_a_later_day_sets_the_second_device_apart(tmp_path: Path) -> None:
    result = check_one(tmp_path, [FIRST], SECOND, CONFIG)
    [match] = [m for m in result.matches if m.id == FIRST.id]
    assert (match.rule, match.same_item) == (Rule.different_names, False), match.reasons
