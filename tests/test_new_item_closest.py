"""A NEW item's reason names as closest only a record the matches under it show, and none
when nothing is close (probe 28: "closest spark/…#2, same item 0.00" named a record past the
five matches shown, all five settled by rules, so the line pointed at nothing in the list)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from conftest import fake_config
from test_doc_section_verdicts import ALBIREO, OTHER, SECTION, check

from kbsearch.dedupe.results import Match, Rule, Verdict
from kbsearch.dedupe.verdict import decide
from kbsearch.records import Kind, Record

NEW = "no known record describes the same item"


def _match(id_: str, probability: float, rule: Rule = Rule.learned) -> Match:
    return Match(
        id=id_, kind=Kind.increment, title="t", instance="jay", date=dt.date(2026, 10, 1), score=0.5,
        lexical=0.0, probability=probability, threshold=0.45, same_item=False, rule=rule,
    )  # fmt: skip


def test_the_closest_record_is_one_of_the_matches_shown() -> None:
    # As check sorts them: rule-settled matches keep their (overruled) probability and come first.
    named_apart = [_match(f"jay/{n}#1", 1.0, Rule.different_names) for n in range(2)]
    learned = _match("spark/far#2", 0.3)
    assert decide([*named_apart, learned], [], shown=2) == (Verdict.NEW, NEW)
    assert decide([*named_apart, learned], [], shown=3)[1] == f"{NEW}; closest spark/far#2, same item 0.30"


def test_no_record_is_closest_at_a_probability_that_prints_as_zero() -> None:
    assert decide([_match("spark/far#2", 0.004)], [], shown=5) == (Verdict.NEW, NEW)
    assert decide([_match("spark/far#2", 0.006)], [], shown=5)[1] == f"{NEW}; closest spark/far#2, same item 0.01"


def test_check_names_no_closest_record_past_the_matches_it_shows(tmp_path: Path) -> None:
    item = Record(id="nova/x#1", kind=Kind.increment, instance="nova", title="Albireo and one engine", claims=[ALBIREO])
    config = fake_config().model_copy(update={"matches_shown": 1})
    result = check(tmp_path, [SECTION, OTHER], item, config)
    assert [m.id for m in result.matches] == [SECTION.id]
    assert result.verdict is Verdict.NEW and result.reason == NEW
