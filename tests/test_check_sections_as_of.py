"""A re-check as of a past day reads a section changed since with its text of that time (probe 23).

A section is dated by the day its text last changed; a check as of an earlier day left the
changed section out altogether, so re-checking day 2 after the day-3 fold no longer saw what
the doc held on day 2, and a claim it stated then came back NEW. Now a section changed after
the day is read with its first text when its first date is the day or earlier, and one first
stored after the day stays out."""

from __future__ import annotations

from pathlib import Path

from test_doc_section_dates import D1, D2, D3, DAY1, DAY3, OSPREY, QUILL, check, folded, increment, ingest
from test_doc_section_verdicts import always_said

from fake_encoder import FakeEncoder
from kbsearch.dedupe.check import Checker
from kbsearch.dedupe.results import Verdict
from kbsearch.records import Kind, Record
from kbsearch.render.dedupe import item_text
from kbsearch.store import Store

SECTION = "doc/serving#§1.2"
SABLE = "Sable (arXiv:2610.00004) routes long prompts to a prefill pool and cuts TTFT by 35%."


def plain(writer: str, claim: str) -> Record:
    """An item stating ``claim`` with no arXiv id: known only by a passage that says it."""
    return Record(
        id=f"{writer}/{D2}#1",
        kind=Kind.increment,
        instance=writer,
        date=D2,
        title="A quantization result",
        claims=[claim],
    )


def test_a_recheck_of_day_2_after_the_fold_reads_the_changed_section_as_it_was(tmp_path: Path) -> None:
    index = folded(tmp_path)  # §1.2 held QuillFP4 since 10-01, changed on 10-03 (Osprey added)
    result = check(index, increment("jay", D2, QUILL, "2610.00002"), as_of=D2)
    [match] = [m for m in result.matches if m.id == SECTION]
    assert match.first_text and match.date == D1
    [claim] = result.claims
    assert claim.known and claim.best_id == SECTION and claim.best_first_text and claim.best_date == D1
    assert claim.best_text is not None and claim.best_text.endswith(QUILL)  # not today's: it adds Osprey
    assert result.verdict is not Verdict.NEW
    shown = item_text(result)
    assert f"the section's text as of its first date {D1}, not today's" in shown


def test_a_claim_the_first_text_stated_is_known_as_of_day_2_without_an_id(tmp_path: Path) -> None:
    index = folded(tmp_path)
    result = check(index, plain("jay", QUILL), as_of=D2)
    [claim] = result.claims
    assert claim.known and claim.best_id == SECTION and claim.best_first_text
    assert claim.best_text is not None and "Osprey" not in claim.best_text
    assert result.first_seen is not None and result.first_seen.id == SECTION and result.first_seen.first_text


def test_a_section_first_stored_after_the_day_stays_out(tmp_path: Path) -> None:
    index, doc = tmp_path / "idx", tmp_path / "knowledge" / "serving.md"
    doc.parent.mkdir()
    ingest(index, doc, DAY1)
    ingest(index, doc, DAY3 + f"\n## §1.3 Disaggregation\n\n{SABLE}\n")  # §1.3 new on 10-03
    result = check(index, increment("jay", D2, SABLE, "2610.00004"), as_of=D2)
    assert "doc/serving#§1.3" not in {m.id for m in result.matches}
    assert all(c.best_id != "doc/serving#§1.3" for c in result.claims)
    # The changed §1.2 is read as first written, never with what the fold brought in.
    assert all(not (c.best_text and OSPREY in c.best_text) for c in result.claims)


def test_a_check_of_the_folds_day_reads_the_section_as_it_is_now(tmp_path: Path) -> None:
    index = folded(tmp_path)
    result = check(index, increment("jay", D3, OSPREY, "2610.00003"))
    [match] = [m for m in result.matches if m.id == SECTION]
    assert not match.first_text and match.date == D3
    assert not result.claims[0].best_first_text


def test_the_note_counts_the_changed_section_as_read_not_left_out(tmp_path: Path) -> None:
    index = folded(tmp_path)
    store = Store.open(index)
    try:
        result = Checker(store, FakeEncoder(), always_said(), D2).check(
            [increment("jay", D2, QUILL, "2610.00002")], file=None, input_name="p"
        )
    finally:
        store.close()
    assert result.notes == [
        "the living-doc section dated after the --as-of date 2026-10-02: "
        "1 changed after it was read with its text of its first date, as the doc held it then"
    ]
