"""Passages a claim is read against as another record's, whatever the record is to the item.

Two late readings of a claim the same-item decision left new weigh a few chosen passages this
way: a repeated item's claim against the living doc's nearest sections (``doc_facts``) and a
background point against its nearest passages of any record (``background_facts``). Each
passage is another record's (no same-item id: ``same_item`` 0, the form's fitted threshold,
``claims.other_item_says``), a title alone is read at its record's nearest other passage
(``Embedded.stating``), and a claim that says what the passage uses is not used
(``finer.denies``) is never said by it. What the said passage must then be is the caller's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kbsearch.dedupe.claims import PassageHit, judge_said
from kbsearch.dedupe.embedded import Embedded
from kbsearch.dedupe.finer import Finer, denies
from kbsearch.dedupe.results import ClaimStatus
from kbsearch.records import Record


@dataclass(frozen=True)
class Said:
    """The form's decision on a claim over another record's passages, and the records read."""

    status: ClaimStatus
    read: dict[str, Embedded]
    """The records whose passages were read, by id, nearest first."""

    def records(self) -> list[Record]:
        """The records read, for the date and version checks."""
        return [known.record for known in self.read.values()]

    def stated_numbers(self) -> frozenset[str]:
        """Every number the record of the passage shown states; none when it names none read."""
        best = self.status.best_id
        return self.read[best].stated_numbers if best in self.read else frozenset()


def said_as_another(claim: str, vector: np.ndarray, hits: list[PassageHit], finer: Finer) -> Said | None:
    """The form's decision on ``claim`` over ``hits`` (nearest first), each read as another
    record's passage, with the records read; None when there is no passage, or when the claim
    gainsays the one saying it."""
    near = [PassageHit(h.known, *h.known.stating(h.index, h.cosine, vector)) for h in hits]  # a title says no fact
    if not near:
        return None
    _, reader, form, _ = finer
    said = judge_said(claim, near, set(), reader, form)  # no same-item id: each passage is another record's
    if denies(claim, said):
        return None
    return Said(said, {h.known.record.id: h.known for h in near})
