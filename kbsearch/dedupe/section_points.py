"""A key point of a seen item restating a living-doc section's very fact is known from the section.

With a same-item record, a claim was weighed against that record's passages alone (``check``):
another paper's passage the form took for the claim was a new fact of this one every time on the
dev feeds. A living-doc section was read only by its entries on the item (``finer``). So a
writer's recap of the doc ("基线回顾：<baseline> 在 7B 模型上 <bench> pass@1 为 67.1", the doc's
own line on the baseline) was a new point of a repeat, and a true DUPLICATE with one such point
came back UPDATE (probes 37, 38). Issue 25: a claim is known when a same-item record says it, or
a record says that very fact; a field survey sharing the vocabulary does not.

So here the sections among the claim's nearest passages are read line by line (their sentences
and clauses, ``finer.finer_texts``) and weighed as another record's passage, ``same_item`` 0 as
``claims.judge_said`` weighs one for an item with no same-item record, at the form's threshold.
On top, the line must state the very fact (``states_the_fact``): the claim gives a figure or a
coined name, the line states each of its figures and writes each of its coined names. A survey
line ("<engine> 与 <engine> 两强并立") shares the field's words, not a recap's figures and names.
The dev streams hold no doc sections, so this never fires there.
"""

from __future__ import annotations

import numpy as np

from kbsearch.dedupe.claims import judge_said
from kbsearch.dedupe.features import latin_names
from kbsearch.dedupe.finer import Finer
from kbsearch.dedupe.passage_reader import PassageHit
from kbsearch.dedupe.results import ClaimStatus
from kbsearch.dedupe.rules import Embedded
from kbsearch.records import Kind, Record
from kbsearch.text.quantities import figure_readings, unstated
from kbsearch.text.textsim import numbers, substantive_numbers

SECTIONS_READ = 2
"""The claim's nearest sections read, nearest first: a recap restates one section's line, and each
section read costs its lines' judge and token vectors."""


def section_points(
    claim: str, vector: np.ndarray, shown: ClaimStatus, hits: list[PassageHit], same: list[Embedded], finer: Finer
) -> ClaimStatus:
    """``shown``, or known from a living-doc section among ``hits`` (the claim's nearest passages)
    whose line states the claim's very fact, for an item with a same-item record (``same``)
    whose passages left the claim new."""
    if shown.known or not same or not (substantive_numbers(claim) or latin_names(claim)):
        return shown
    sections = list({h.known.record.id: h.known for h in hits if h.known.record.kind is Kind.doc_section}.values())
    if not sections:
        return shown
    passages, reader, form, _ = finer
    records = [(s.record, s.passages) for s in sections[:SECTIONS_READ]]
    stored = [h for h in hits if h.known.record.id in {r.id for r, _ in records}]
    said = judge_said(claim, stored + passages.hits(vector, records), set(), reader, form)
    if not said.known or not states_the_fact(claim, said.best_text or ""):
        return shown
    return said.model_copy(update={"cosine_known": shown.cosine_known})


def known_from(status: ClaimStatus, hits: list[PassageHit]) -> list[Record]:
    """The section among ``hits`` a known claim is known from: its dates count as given (``claim_dates``)."""
    found = {h.known.record.id: h.known.record for h in hits if h.known.record.kind is Kind.doc_section}
    return [found[status.best_id]] if status.known and status.best_id in found else []


def states_the_fact(claim: str, line: str) -> bool:
    """Whether ``line`` states each figure of the claim and writes each of its coined names."""
    figures = substantive_numbers(claim)
    if unstated(figures, numbers(line), figure_readings(claim)):
        return False
    return latin_names(claim) <= latin_names(line)
