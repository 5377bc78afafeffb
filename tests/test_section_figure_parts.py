"""A short key point restating one figure of the section listing the item's paper is known
from it (a new user's probe 19, 6 December).

A living doc's line on a paper packs its facts in one English sentence ("… is training-free:
it drafts tokens … and reaches 1.5x on chat workloads"). A 要点 restating one of them
("聊天负载上加速 1.5 倍") was weighed against the whole sentence, whose other facts pulled
the decision below its threshold, and came out NEW: a duplicate passed the gate. The parts of
a section's sentence that "and", "with" or "at" join on and that state a figure are passages
of their own, and a section listing the item's arXiv id is read first at its passages stating
the claim's figures (a survey entry naming the item covered more of a claim's words and was
weighed instead). A claim whose figure the section does not state, or states of another
quantity, stays new."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from test_finer_passages import OTHER, check

from kbsearch.dedupe.finer import figure_parts
from kbsearch.dedupe.results import Verdict
from kbsearch.records import Kind, Record

SECTION = Record(
    id="doc/serving#§4.7",
    kind=Kind.doc_section,
    title="§4.7 Quillspec",
    text=(
        "Quillspec (arXiv:2601.33333) needs no training: it drafts tokens from n-gram tables kept while "
        "decoding and reaches 1.7x on chat traffic."
    ),
    arxiv_ids=["2601.33333"],
    date=dt.date(2026, 11, 2),
)


def increment(claims: list[str]) -> Record:
    return Record(
        id="kim/2026-11-09#2", kind=Kind.increment, instance="kim", date=dt.date(2026, 11, 9),
        title="Quillspec draft decoding", text="", claims=claims, arxiv_ids=["2601.33333"],
    )  # fmt: skip


def test_the_parts_joined_on_that_state_a_figure_are_passages() -> None:
    assert figure_parts(["PageFerry (arXiv:2601.44444) serves 512 adapters with 1.6x the throughput of Loom."]) == [
        "PageFerry (arXiv:2601.44444) serves 512 adapters",
        "1.6x the throughput of Loom",
    ]
    assert figure_parts(["it drafts tokens and reaches 1.7x on chat traffic"]) == ["reaches 1.7x on chat traffic"]
    assert figure_parts(["runs on one node and keeps its cache warm", "nothing joined on: 5%"]) == []


def test_a_claim_restating_one_figure_of_the_sections_sentence_is_known(tmp_path: Path) -> None:
    item = check(tmp_path, [SECTION, OTHER], increment(["Speedup reaches 1.7x on chat traffic"]))
    [claim] = item.claims
    assert (claim.known, claim.best_id, claim.new_numbers) == (True, SECTION.id, [])
    assert claim.best_text == "reaches 1.7x on chat traffic"
    assert item.verdict is Verdict.DUPLICATE


def test_a_figure_the_section_does_not_state_stays_new(tmp_path: Path) -> None:
    item = check(tmp_path, [SECTION, OTHER], increment(["Speedup reaches 2.1x on chat traffic"]))
    [claim] = item.claims
    assert not claim.known and claim.new_numbers == ["2.1x"] and item.verdict is Verdict.NEW


FERRY = Record(
    id="doc/serving#§8.2",
    kind=Kind.doc_section,
    title="§8.2 PageFerry",
    text="PageFerry (arXiv:2601.44444) serves 512 adapters on one A100 with 1.6x the throughput of Loom.",
    arxiv_ids=["2601.44444"],
    date=dt.date(2026, 11, 2),
)
SURVEY = Record(
    id="doc/serving#§8",
    kind=Kind.doc_section,
    title="§8 Multi-adapter serving",
    text="- Like Loom, PageFerry gets the throughput of Loom.",
    date=dt.date(2026, 11, 2),
)


def test_the_section_listing_the_items_paper_is_read_at_the_passage_stating_the_figure(tmp_path: Path) -> None:
    """A survey entry naming the item by its coined name, nearer the claim but without its
    figure, was the passage weighed (and shown) instead of the listing section's."""
    record = increment(["PageFerry gets 1.6x the throughput of Loom"])
    record = record.model_copy(update={"title": "PageFerry multi-adapter serving", "arxiv_ids": ["2601.44444"]})
    item = check(tmp_path, [FERRY, SURVEY, OTHER], record)
    [claim] = item.claims
    assert (claim.known, claim.best_id, claim.best_text) == (True, FERRY.id, "1.6x the throughput of Loom")
