"""A living-doc section's entry on an item says a claim only as another record's passage would
(probe 36: a release fact was known at 0.10 ≥ 0.08 from a section's line naming the item, weighed
with the prior of a record judged the same item; issue 25). Its true restatements stay known."""

from __future__ import annotations

import datetime as dt

from test_claim_said import form
from test_finer_passages import SECTION

from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.dedupe.claims import PassageReader
from kbsearch.dedupe.finer import FinerPassages, finer_said
from kbsearch.dedupe.results import ClaimStatus
from kbsearch.dedupe.section_said import as_other_record
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()
# Says a passage states a claim at lexical overlap 0.6 for a same-item record, 0.8 for another.
SAME_ITEM_PRIOR = form({"lexical": 20.0, "same_item": 4.0, "bias": -16.0})


def section_said(claim: str) -> ClaimStatus:
    finer = FinerPassages(ENCODER), PassageReader(None, None), SAME_ITEM_PRIOR, False
    shown = ClaimStatus(text=claim, known=False, score=0.0, threshold=0.5)
    return finer_said(claim, ENCODER.encode([claim])[0], shown, [], [SECTION], finer)


def test_a_section_line_sharing_the_items_words_but_not_the_fact_leaves_it_new() -> None:
    claim = "Pebble 以 3-bit 量化缓存，权重开源"  # the section never says the weights are out
    assert not section_said(claim).known


def test_a_section_line_restating_the_claim_still_makes_it_known() -> None:
    status = section_said("Pebble 以 3-bit 量化缓存")
    assert status.known and status.best_id == SECTION.id and status.decided_by == "claim_said"
    assert status.features["same_item"] == 0.0 and status.score >= SAME_ITEM_PRIOR.threshold


def test_a_same_item_records_decision_is_left_as_it_is() -> None:
    said = ClaimStatus(
        text="x", known=True, score=0.5, threshold=0.5, best_id="tom/1", best_kind="increment",
        features={"same_item": 1.0, "lexical": 0.6, "coverage": 0.0},
    )  # fmt: skip
    assert as_other_record(said, SAME_ITEM_PRIOR) is said


# An entry on a paper, its two facts in two sentences: no one of its passages says both.
SPLIT = Record(
    id="doc/video#§1.1", kind=Kind.doc_section, title="§1.1 video generation",
    text="- Tamarind ( arXiv:2601.44444 ) renders 6 s clips at 480p . It scores 77.2 on ClipEval .",
    arxiv_ids=["2601.44444"], date=dt.date(2026, 11, 2),
)  # fmt: skip
# Says a claim when the record covers it: its passage alone need not (as the fitted form).
RECORD_COVERAGE = form({"record_coverage": 20.0, "bias": -19.0})


def entry_said(claim: str) -> ClaimStatus:
    finer = FinerPassages(ENCODER), PassageReader(None, FakeTokenEncoder()), RECORD_COVERAGE, False
    shown = ClaimStatus(text=claim, known=False, score=0.0, threshold=0.5)
    return finer_said(claim, ENCODER.encode([claim])[0], shown, [], [SPLIT], finer)


def test_an_entry_saying_a_claim_across_its_sentences_makes_it_known() -> None:
    """A successor's recap of the paper it cites (``cited_entries`` hands over the entry): the
    entry's lines together say it, as the section's whole text would."""
    status = entry_said("Tamarind renders 6 s clips at 480p scoring 77.2 on ClipEval")
    assert status.known and status.best_id == SPLIT.id and status.features["same_item"] == 0.0
    assert status.features["record_coverage"] > status.features["coverage"]  # its lines, not one passage


def test_an_entrys_lines_together_still_leave_a_fact_they_lack_new() -> None:
    """The recap with a release the entry never tells: its lines share the name and figures only."""
    assert not entry_said("Tamarind renders 6 s clips at 480p and its weights are out under Apache licence").known
