"""A repeated item's claim that the living doc states is known, as the doc's fact (probes 41,
42, 44: a briefing retelling a team default beside a release it has told before).

With a same-item record, a claim was weighed against that record's passages alone, and the doc
was read only at entries naming the item; a claim that nearly copies a doc sentence about
something else stayed new. Now the claim's nearest doc passages are read too, as another
record's (``same_item`` 0): a passage sharing the topic's words but not the fact says nothing."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from support.checking import check_one
from test_claim_said import form
from test_doc_section_verdicts import always_said

from kbsearch.dedupe.results import ItemResult
from kbsearch.records import Kind, Record

# Said at lexical overlap 0.65 by another record's passage, at 0.175 by the item's own record.
FORM = form({"lexical": 20.0, "same_item": 9.5, "bias": -13.0})
DEFAULT = "Every nightly snapshot is copied to tape and the last twelve tapes are kept offsite"
SECTION = Record(
    id="doc/ops#§2.3", kind=Kind.doc_section, title="§2.3 backups", text=f"{DEFAULT}.", date=dt.date(2026, 3, 2)
)
RELEASE = "Quillmark 2.0 restores a cluster from snapshots in minutes"
EARLIER = Record(
    id="ann/03-05#2", kind=Kind.increment, instance="ann", date=dt.date(2026, 3, 5),
    title="Quillmark cluster restore tool", text="", claims=[RELEASE], arxiv_ids=["2603.01234"],
)  # fmt: skip


def told(claim: str) -> Record:
    return Record(
        id="bo/03-09#4", kind=Kind.increment, instance="bo", date=dt.date(2026, 3, 9),
        title="Quillmark cluster restore tool is open source", text="",
        claims=[RELEASE, claim], arxiv_ids=["2603.01234"],
    )  # fmt: skip


def check(tmp_path: Path, claim: str) -> ItemResult:
    config = always_said().model_copy(update={"claim_said": FORM})
    return check_one(tmp_path, [SECTION, EARLIER], told(claim), config)


def test_a_claim_the_doc_states_is_known_beside_the_items_own_record(tmp_path: Path) -> None:
    """A near copy of the doc's sentence (not word for word), the doc naming none of the item."""
    item = check(tmp_path, "each nightly snapshot is copied to tape and the last twelve tapes are kept offsite")
    assert item.matches[0].id == EARLIER.id and item.matches[0].same_item, item.matches
    first, default = item.claims
    assert first.known and first.best_id == EARLIER.id
    assert default.known and default.best_id == SECTION.id and default.best_kind is Kind.doc_section
    assert default.features["same_item"] == 0.0  # read as another record's passage, never as the item's


def test_a_doc_passage_sharing_the_words_but_not_the_fact_leaves_the_claim_new(tmp_path: Path) -> None:
    """Read as the item's record the passage would say it (lexical 0.19 ≥ the same-item line 0.175)."""
    item = check(tmp_path, "Quillmark snapshots are copied to object storage, not tape, kept for a year")
    first, licence = item.claims
    assert first.known and not licence.known
