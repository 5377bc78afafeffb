"""A living-doc section's entry on an item says a claim only as another record would.

``finer.finer_said`` reads a section's entries naming the item with ``claims.judge_said``,
the section taken for the item's record so that its few nearest passages are the ones read.
The form's ``same_item`` feature then read 1: the prior of a record judged the same item,
whose claims are mostly known, and the low threshold (0.08) fitted for that. A section is a
survey of the field: its entry names the item and a fact or two, and a release told days later
("weights published under Apache-2.0") shares its name and topic words, not its fact (probe
36: 0.10 ≥ 0.08 from "X 是开源社区最常引用的基线", 0.03 as another record's passage). The
passage the decision chose is weighed again as what it is, another record's (``same_item`` 0),
and says the claim only at the form's threshold: issue 25, a claim is known when a same-item
record says it or a record says that very fact. The coefficients are the fitted ones.

Its ``record_coverage`` stays the entry's: the claim's share its lines say together (pooled
over the passages read, as ``judge_said`` gives it). A section's stored passage is its whole
text, so another record's passage there covers what the record says; an entry cut to its
lines has only its sentences and clauses as passages, and one of them alone is not the
record. An entry recalling a cited paper ("生成 5 秒 720p 片段，……在 VBench-X 上得分 81.7")
said the recap at 0.12 so, 0.06 by its first sentence's coverage (probe 36, with
``cited_entries``); a line sharing the topic words covers no more of a new fact together.
"""

from __future__ import annotations

from kbsearch.dedupe.claim_decision import ClaimDecision
from kbsearch.dedupe.results import ClaimStatus
from kbsearch.dedupe.scorer import Scorer
from kbsearch.records import Kind


def as_other_record(said: ClaimStatus, form: Scorer) -> ClaimStatus:
    """``said`` (a section's finer passages read as the item's record) re-decided with the
    passage's features as another record's; unchanged when no section's passage decided it."""
    if said.best_kind is not Kind.doc_section or "same_item" not in said.features:
        return said
    features = {**said.features, "same_item": 0.0}  # record_coverage: the entry's lines together
    probability = form.probability(features)
    known = said.known and form.decide(probability)
    return said.model_copy(
        update={
            "known": known,
            "score": round(probability, 4),
            "restated": False,
            "decided_by": ClaimDecision.claim_said,
            "extra_numbers": said.extra_numbers if known else [],
            "features": {name: round(value, 6) for name, value in features.items()},
        }
    )
