"""An earlier day's item cited by its name and figure, "Tessel (61.4% …, 10-12锚定)", is context:
its names and figures are not what the citing record says (``dedupe.citations``)."""

from __future__ import annotations

import pytest
from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.citations import cited_only, without_citations
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded, compare
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()
CONFIG = fake_config()


def embedded(record_id: str, title: str, *claims: str) -> Embedded:
    record = Record(id=record_id, kind=Kind.increment, title=title, text="\n".join(claims), claims=list(claims))
    return Embedded(record, ENCODER.encode(record.passages()))


def rare(name: str) -> int:
    return 1 if name in {"tessel", "quarrystone-live", "marlowe"} else 50


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("Tessel (61.4% on the full set, 10-12锚定) has not been run on it", {"tessel", "full", "set", "the"}),
        ("成绩低于Marlowe（见 10-12）", {"marlowe"}),
        ("It trails Marlowe's (see 10-12)", {"marlowe", "see"}),
        ("Tessel now reaches 61.4% (10-12锚定 58.0%)", set()),  # named outside the citation: said
        ("Tessel (61.4% on the full set) has not been run", set()),  # no earlier day: no citation
    ],
)
def test_the_names_of_a_citation_of_an_earlier_day_are_only_cited(text: str, cited: set[str]) -> None:
    assert cited_only(text) == cited


def test_a_citation_s_figures_are_not_stated() -> None:
    assert "61.4" not in without_citations("Tessel (61.4% on the full set, 10-12锚定) was not run")
    assert "61.4" in without_citations("Tessel reaches 61.4% (10-12锚定 58.0%)")


def test_a_new_item_citing_a_known_score_is_not_that_score_s_item() -> None:
    """A new benchmark split whose key point cites a known agent's score with its anchor date
    shares that agent's name and figure, and no more: two items (probe 32 merged them, 0.9999)."""
    known = embedded("t", "Tessel 在 Quarrystone 全集上的成绩升至 61.4%", "Tessel 的解决率从 58.0% 升至 61.4%")
    citing = embedded(
        "q",
        "Quarrystone-Live: a leak-free split of Quarrystone",
        "Quarrystone-Live keeps 250 tasks written after every model's cutoff",
        "Tessel (61.4% on Quarrystone, 10-12锚定) has not been run on the new split",
    )
    match = compare(citing, known, CONFIG, Neighbourhood(), rare)
    assert not match.same_item and match.rule is Rule.different_names, match.reasons
    assert "tessel" in match.reasons[0]
    assert "61.4" not in citing.numbers  # not a number the two share (the learned feature)
    assert "tessel" not in citing.side.names


def test_a_record_that_says_the_cited_name_is_still_its_item() -> None:
    """A true update names its subject outside the note: the names rule leaves it to the scores."""
    known = embedded("t", "Tessel 在 Quarrystone 全集上的成绩升至 61.4%", "Tessel 的解决率从 58.0% 升至 61.4%")
    update = embedded(
        "u",
        "Tessel reaches 64.0% on Quarrystone",
        "Tessel now solves 64.0% of Quarrystone tasks, up from 61.4% (10-12锚定)",
    )
    assert compare(update, known, CONFIG, Neighbourhood(), rare).rule is not Rule.different_names
    titled = embedded("v", "Tessel 64.0%", "The score rose again (61.4%, 10-12锚定)")
    assert compare(titled, known, CONFIG, Neighbourhood(), rare).rule is not Rule.different_names
