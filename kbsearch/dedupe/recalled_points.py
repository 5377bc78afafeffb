"""A background point is read for the fact it recalls, without its label.

``background_facts.recalled_said`` reads a background point the decisions left new against its
nearest passages of any record. Read with its label, the point's "Background:" covered another
record's labelled point better than the recalled record's sentence in the other language: probe
50's "Background: MedHallu-2 measures 12 LLMs writing 5,000 real discharge summaries" was weighed
against "Background: MedArena-Live is built from 2,400 real cases …" (0.0001) and not against
qiu's "评测：12 个 LLM 在 5,000 份真实出院小结…" (0.37 ≥ 0.08 without the label). The label says
why the point is there, not what it says (``background.recalled_fact``).
"""

from __future__ import annotations

import numpy as np

from kbsearch.dedupe.background import recalled_fact
from kbsearch.dedupe.background_facts import recalled_said
from kbsearch.dedupe.claims import PassageHit
from kbsearch.dedupe.finer import Finer
from kbsearch.dedupe.results import ClaimStatus
from kbsearch.records import Record


def recalled_point_said(
    claim: str, vector: np.ndarray, background: frozenset[str], shown: ClaimStatus, hits: list[PassageHit], finer: Finer
) -> tuple[ClaimStatus, list[Record]]:
    """``recalled_said`` on the fact a background ``claim`` recalls, its status shown with the claim's
    own words; any other claim as ``recalled_said`` reads it. ``vector``: the claim's, as searched."""
    fact = recalled_fact(claim)
    if claim not in background or fact == claim:
        return recalled_said(claim, vector, background, shown, hits, finer)
    status, read = recalled_said(fact, vector, frozenset({fact}), shown, hits, finer)
    return (status if status is shown else status.model_copy(update={"text": claim})), read
