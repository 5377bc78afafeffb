"""A known claim that gives an advisory's version its records never give is new (issue 25, probe 46).

The claim decisions read figures as ``textsim.numbers`` spells them, which leaves versions out:
"Affected range widened to 0.6.0 through 0.9.2 (was 0.7.0 through 0.9.2)" was known (0.82) from a
record's "受影响版本 0.7.0 至 0.9.2". A version the claim gives as what is affected or fixed
(``text.advisory_versions``) is a figure there: one none of the same-item records nor the
living-doc sections writes anywhere is news, as a number they lack is. Any other version ("vLLM
0.6.3 adds FP8") is left alone.

Read after the decisions, as ``claim_dates`` is: the decisions' inputs (and their fitted forms) are unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable

from kbsearch.dedupe.results import ClaimStatus
from kbsearch.dedupe.rules import Embedded
from kbsearch.records import Record
from kbsearch.text.advisory_versions import new_versions


def versioned(status: ClaimStatus, claim: str, same: Iterable[Embedded], docs: Iterable[Record] = ()) -> ClaimStatus:
    """``status``, made new when it is known and the claim gives an advisory's version that none
    of the same-item records (``same``) nor the living-doc sections (``docs``) writes: the version
    is shown among its new figures."""
    if not status.known:
        return status
    records = [k.record for k in same] + list(docs)
    if not records:
        return status
    texts = [text for r in records for text in (r.title, r.text, *r.claims, *r.sources)]
    lacking = new_versions(claim, texts)
    if not lacking:
        return status
    update = {"known": False, "restated": False, "new_numbers": sorted({*status.new_numbers, *lacking})}
    return status.model_copy(update={**update, "extra_numbers": []})
