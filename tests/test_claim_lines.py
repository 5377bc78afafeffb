"""A claim line never reads as its own contradiction: a NEW claim whose closest
passage clears the threshold says that passage's record is another item."""

from __future__ import annotations

import datetime as dt

from kbsearch.dedupe.results import ClaimStatus, ItemResult, Verdict
from kbsearch.records import Kind
from kbsearch.render import item_text


def claim(known: bool, score: float, numbers: list[str] | None = None) -> ClaimStatus:
    return ClaimStatus(
        text="skipped layers still write KV entries",
        known=known,
        score=score,
        threshold=0.5,
        best_id="jay/2026-08-26#2",
        new_numbers=numbers or [],
    )


def item_of(*claims: ClaimStatus) -> ItemResult:
    return ItemResult(
        id="x",
        title="TIDE",
        kind=Kind.increment,
        instance=None,
        date=None,
        verdict=Verdict.NEW,
        reason="no match",
        claims=list(claims),
    )


def lines(*claims: ClaimStatus) -> list[str]:
    return [line for line in item_text(item_of(*claims)).splitlines() if "←" in line]


def test_a_new_claim_said_by_another_item_says_so() -> None:
    [line] = lines(claim(known=False, score=0.56))
    assert line.lstrip().startswith("NEW") and "0.56 ≥ 0.50, but is not the same item" in line


def test_known_claims_new_numbers_and_weak_matches_read_as_before() -> None:
    known, numbers, weak = lines(claim(True, 0.9), claim(False, 0.7, ["2.5×"]), claim(False, 0.2))
    assert not any("not the same item" in line for line in (known, numbers, weak))
    assert "0.20 < 0.50" in weak and "[new numbers: 2.5×]" in numbers


def test_a_passage_below_the_threshold_is_named_the_nearest_not_as_saying_the_claim() -> None:
    """'← jay#1 says the same 0.00 < 0.08' named an unrelated record as if it agreed."""
    [weak] = lines(claim(False, 0.0))
    assert "← jay/2026-08-26#2 is the nearest, 0.00 < 0.50" in weak and "says the same" not in weak


def test_a_claim_new_by_its_numbers_quotes_the_passage_with_the_old_figure() -> None:
    """A changed figure's line named the record but hid the 30% the claim's 20% replaces."""
    changed = claim(False, 0.9, ["20%"]).model_copy(update={"best_text": "keeps about 30% of the KV entries"})
    text = item_text(item_of(changed)).splitlines()
    assert any(line.strip() == "“keeps about 30% of the KV entries”" for line in text)


def test_a_new_claim_clearing_the_threshold_says_why_in_the_same_clause() -> None:
    """'says the same 0.70 ≥ 0.50' on a NEW line read as known: the reason follows it."""
    numbers, moved = lines(
        claim(False, 0.7, ["25.8"]), claim(False, 0.7).model_copy(update={"moved_on": "review → merged"})
    )
    assert "0.70 ≥ 0.50, but with new numbers [new numbers: 25.8]" in numbers
    assert "0.70 ≥ 0.50, but at an earlier stage [moved on: review → merged]" in moved


def test_a_known_claim_shows_the_passage_that_says_it_cut_to_a_line() -> None:
    """Issue 24: the text output named the record, never what in it says the same (only --json did)."""
    passage = "KV entries of the skipped layers are copied from the last computed layer\nwhich costs accuracy " * 4
    said = claim(True, 0.9).model_copy(update={"best_text": passage})
    unsaid = claim(False, 0.2).model_copy(update={"best_text": "an unrelated passage"})
    item = ItemResult(
        id="x",
        title="TIDE",
        kind=Kind.increment,
        instance=None,
        date=None,
        verdict=Verdict.UPDATE,
        reason="same item",
        claims=[said, unsaid],
    )
    text = item_text(item).splitlines()
    quoted = [line for line in text if line.strip().startswith("“")]
    assert len(quoted) == 1 and quoted[0].strip().startswith("“KV entries of the skipped layers are copied")
    assert quoted[0].strip().endswith("…”") and "\n" not in quoted[0] and len(quoted[0]) < 120
    assert text.index(quoted[0]) == text.index(next(line for line in text if line.strip().startswith("known"))) + 1


def test_a_claim_that_moves_its_item_on_says_from_which_stage() -> None:
    """Said at 0.70 by a passage telling an earlier stage: new, and not "another item"."""
    moved = claim(False, 0.7).model_copy(update={"moved_on": "review → merged"})
    [line] = lines(moved)
    assert line.lstrip().startswith("NEW") and "[moved on: review → merged]" in line
    assert "not the same item" not in line


def test_a_claim_known_because_its_card_restates_the_paper_says_so_not_a_score_below_the_threshold() -> None:
    """A second card of a paper: its claim with no new number is known at 0.00 < 0.08, a line that read
    as its own contradiction."""
    restated = claim(True, 0.0).model_copy(update={"restated": True})
    [line] = [x for x in item_text(item_of(restated)).splitlines() if x.lstrip().startswith("known")]
    assert "a card of the same paper: a claim is known unless it brings a new number" in line
    assert "0.00 < 0.50" not in line


def test_an_item_says_up_to_which_day_it_was_compared_whatever_the_day() -> None:
    """--as-of another day than the item's own printed no line: the text never said what was compared."""
    earlier = item_of().model_copy(update={"as_of": dt.date(2026, 9, 21), "date": dt.date(2026, 9, 23)})
    own = earlier.model_copy(update={"as_of": dt.date(2026, 9, 23)})
    assert "compared with records dated up to 2026-09-21\n" in item_text(earlier) + "\n"
    assert "compared with records dated up to 2026-09-23, its own date" in item_text(own)


def test_a_score_just_under_the_threshold_shows_the_digits_that_tell_them_apart() -> None:
    """'is the nearest, 0.08 < 0.08' (0.0759 against 0.08) read as false."""
    under, over = (claim(False, score).model_copy(update={"threshold": 0.08}) for score in (0.0759, 0.24))
    near, said = lines(under, over)
    assert "is the nearest, 0.076 < 0.080" in near and "0.24 ≥ 0.08" in said
