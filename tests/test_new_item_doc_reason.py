"""A NEW item some of whose claims a living-doc section states says so in its reason and
in ``stated_in_doc`` (probe 23: "Meridian scales to EP=128", whose EP=64 claim doc/serving
§1.6 states, read "no known record describes the same item; closest tom/…#2", an unrelated
record, and the section showed only in the claim lines)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from test_doc_section_verdicts import ALBIREO, OTHER, SECTION, check

from kbsearch.dedupe.results import ClaimStatus, Match, Rule, Verdict
from kbsearch.dedupe.verdict import decide, doc_stated
from kbsearch.records import Kind, Record


def _claim(known: bool, best_id: str, kind: Kind, score: float = 0.9, new_numbers: tuple[str, ...] = ()) -> ClaimStatus:
    return ClaimStatus(
        text="c",
        known=known,
        score=score,
        threshold=0.5,
        best_id=best_id,
        best_kind=kind,
        new_numbers=list(new_numbers),
    )


CLOSEST = Match(
    id="tom/ferry#2", kind=Kind.increment, title="Ferry", instance="tom", date=dt.date(2026, 10, 1), score=0.25,
    lexical=0.0, probability=0.01, threshold=0.55, same_item=False, rule=Rule.learned,
)  # fmt: skip


def test_a_new_items_reason_names_the_section_stating_a_claim_before_the_closest_record() -> None:
    stated = _claim(True, "doc/serving#§1.6", Kind.doc_section)
    new = _claim(False, "tom/ferry#2", Kind.increment, score=0.01)
    verdict, reason = decide([CLOSEST], [stated, new])
    assert verdict is Verdict.NEW
    assert reason == (
        "no known record describes the same item; the living doc states claim 1 of 2 (doc/serving#§1.6); "
        "closest tom/ferry#2, same item 0.01"
    )
    assert doc_stated([stated, new]) == ["doc/serving#§1.6"]


def test_a_claim_new_only_by_a_figure_against_a_section_is_named_too() -> None:
    figure = _claim(False, "doc/serving#§1.6", Kind.doc_section, new_numbers=("128",))
    far = _claim(False, "doc/serving#§1.2", Kind.doc_section, score=0.1, new_numbers=("44%",))
    reason = decide([CLOSEST], [figure, far])[1]
    assert "; the living doc states claim 1 of 2 but for new numbers (doc/serving#§1.6); closest" in reason
    assert doc_stated([figure, far]) == ["doc/serving#§1.6"]  # a passage that is only the nearest says nothing
    by_another = _claim(True, "jay/n#1", Kind.increment)
    assert (
        decide([CLOSEST], [by_another])[1]
        == "no known record describes the same item; closest tom/ferry#2, same item 0.01"
    )


def test_check_gives_the_section_in_the_reason_and_the_json(tmp_path: Path) -> None:
    item = Record(
        id="spark/meridian#2", kind=Kind.increment, instance="spark", date=dt.date(2026, 12, 6),
        title="Albireo at larger scale", text="", claims=[ALBIREO, "step time alarms per rank"],
    )  # fmt: skip
    result = check(tmp_path, [SECTION, OTHER], item)
    assert result.verdict is Verdict.NEW and [c.known for c in result.claims] == [True, False]
    assert result.stated_in_doc == [SECTION.id]
    assert f"the living doc states claim 1 of 2 ({SECTION.id})" in result.reason
    assert result.model_dump(mode="json")["stated_in_doc"] == [SECTION.id]
