"""`explain --claim N` words a living-doc section as check does: evidence, never the same item.

Probe 48: of an item check judged the same item as no record, explain said so on one line and on
the next "weighed doc/speech#§1.3 (same item)": the section's lines on the item are scored as if
they were the item's record to pick the passage, then decided as the section's own
(``section_said``), and check's ``relation`` calls a section "evidence". The texts here are
written for this test."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from support.checking import check_one, said_by

from kbsearch.dedupe.claim_reasons import explain_claim
from kbsearch.dedupe.results import Verdict
from kbsearch.records import Kind, Record

PAPER = "2603.44444"
SECTION = Record(
    id="doc/storage#§3.2", kind=Kind.doc_section, title="§3.2 Cold-tier compression", date=dt.date(2026, 9, 1),
    text=(
        f"- Larkspur (arXiv {PAPER}) packs log blocks with 4-bit dictionary codes.\n"
        "- Larkspur shrinks cold storage 5.2x with reads under 2% slower."
    ),
    arxiv_ids=[PAPER],
)  # fmt: skip
OTHER = Record(id="ann/x#1", kind=Kind.increment, title="Disk health alerts", text="SMART warnings per rack")
ITEM = Record(
    id="mia/2026-09-04#1", kind=Kind.increment, instance="mia", date=dt.date(2026, 9, 4),
    title="Larkspur: dictionary-coded log blocks", text="", arxiv_ids=[PAPER],
    claims=["Larkspur shrinks cold storage 5.2x with reads under 2% slower"],
)  # fmt: skip


def test_a_claim_known_from_a_section_is_explained_as_evidence_not_the_same_item(tmp_path: Path) -> None:
    config = said_by("lexical")
    item = check_one(tmp_path, [SECTION, OTHER], ITEM, config)
    [claim] = item.claims
    assert not any(m.same_item for m in item.matches) and item.verdict is Verdict.DUPLICATE
    assert claim.known and claim.best_id == SECTION.id and claim.evidence[0].same_item  # scored as if the item's
    why = explain_claim(item, 1, ITEM, [], SECTION.id, config)
    assert why.same_item == [] and why.known
    said = next(step for step in why.steps if step.rule == "claim_said")
    assert said.says is True
    assert f"weighed {SECTION.id} (evidence: a living-doc section, never the item" in said.detail
    assert "same item" not in said.detail and "scored as the section it is" in said.detail
    assert "a living-doc section's (evidence, never the item)" in why.steps[0].detail
