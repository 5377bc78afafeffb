"""A known claim that gives a date its records never give is new (issue 25, probe 35).

The claim decisions read figures as ``textsim.numbers`` spells them, which leaves dates out:
"GPAI 义务适用日由 2027年8月1日 推迟至 2028年2月1日" was known from the record's "GPAI 义务自
2027年8月1日 起适用" (0.97), and "a fix was deployed on 2027-02-27" from an incident notice
that dates only the incident. A date is a figure of its own kind (``text.dates``): a date the
records lack, in every spelling, is news as a number they lack is; the same date in another
spelling (2027年1月1日, January 1, 2027) is no news. A record's own day counts as a date it
gives (the day its writer saw the news), and so do the dates of its sources.

Read after the decisions, on the claim's text and the records it was weighed against: the
decisions' inputs (and so their fitted forms) are unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable

from kbsearch.dedupe.results import ClaimStatus
from kbsearch.dedupe.rules import Embedded
from kbsearch.records import Record
from kbsearch.text.dates import new_dates


def _texts(record: Record) -> list[str]:
    return [record.title, record.text, *record.claims, *record.sources]


def dated(status: ClaimStatus, claim: str, same: Iterable[Embedded], docs: Iterable[Record] = ()) -> ClaimStatus:
    """``status``, made new when it is known and the claim gives a date that none of the
    same-item records (``same``) nor the living-doc sections (``docs``) gives: the date is
    shown among its new figures."""
    if not status.known:
        return status
    records = [k.record for k in same] + list(docs)
    if not records:
        return status
    texts = [text for record in records for text in _texts(record)]
    lacking = new_dates(claim, texts, [r.date for r in records if r.date is not None])
    if not lacking:
        return status
    return status.model_copy(
        update={
            "known": False,
            "restated": False,
            "new_numbers": sorted({*status.new_numbers, *lacking}),
            "extra_numbers": [],
        }
    )
