"""A claim of a repeated item that the living doc states is known, as the doc's fact.

With a same-item record, ``Checker._claims`` weighs a claim against that record's passages
alone, and ``finer.finer_said`` reads the doc only at entries naming the item (its arXiv id or
a rare coined name) or copying a key point word for word. A briefing retelling a team default
beside the item's news ("团队默认配置是 ZeRO-3 分片，700 亿参数以上再叠加 8 路张量并行" under
a release of a planner the doc never names) states a fact the doc already holds, and it was new:
the item's earlier record does not say it, and the doc's section was not read (probes 41, 42,
44: four key points, each close to a copy of a doc sentence, its figure the doc's own).

Here the claim's nearest living-doc passages are read too, as what they are: another record's
(``same_item`` 0, the form's fitted threshold, ``claims.other_item_says``: no new figure or
stage), never as the item's record. A section stating one fact of an item is not a record of
that item (``section_said``; the reverted stop-69 rule read it so, and a survey line made a
release's licence known, probe 36). A claim is known here only when the doc states that very
fact at the standard any other record's passage is held to.

The section is read at its stored passages, not cut to clauses: a clause alone, read as another
record's, scored just under the line for a fact packed with others in one sentence (0.073 and
0.076 against 0.08), and the threshold is the fitted one. A near copy of a doc sentence clears
it whole. The dev streams hold no doc sections, so nothing here runs on them.
"""

from __future__ import annotations

import numpy as np

from kbsearch.dedupe.another_record import said_as_another
from kbsearch.dedupe.claims import PassageHit
from kbsearch.dedupe.finer import Finer
from kbsearch.dedupe.results import ClaimStatus
from kbsearch.records import Kind, Record

DOC_HITS = 3
"""The nearest doc-section passages read for a claim: the ones the claim's search ranked first."""


def doc_said(
    claim: str, vector: np.ndarray, shown: ClaimStatus, hits: list[PassageHit], finer: Finer
) -> tuple[ClaimStatus, list[Record]]:
    """``shown`` (a claim of an item with a same-item record), or known when one of the claim's
    nearest doc-section passages (``hits``, nearest first) says it as another record's passage
    would, and does not gainsay it (``finer.denies``); with the sections read, for the date check."""
    if shown.known:
        return shown, []
    docs = [h for h in hits if h.known.record.kind is Kind.doc_section][:DOC_HITS]
    read = said_as_another(claim, vector, docs, finer)
    if read is None or not read.status.known or read.status.best_kind is not Kind.doc_section:
        return shown, []
    return read.status.model_copy(update={"cosine_known": shown.cosine_known}), read.records()
