"""Check's candidates past the aligned cap whose decision lies near the line: aligned too.

``check`` gives token vectors, and so the aligned decision, to the
``aligned_candidates`` (10) candidates nearest by the judge's cosine
(``check_reading.to_align``); the rest are decided by the unaligned forms. So a
verdict turned on a rank at the cap: probe 33's wrong match was 11th by a
thousandth of cosine and was joined by the unaligned key-points form (0.504 ≥
0.45) where the aligned one read 0.18 < 0.55; on the dev replay across languages
7 of 61 missed repeats had their true record 12th to 23rd, decided unaligned at
0.001 to 0.22.

A candidate past the cap whose unaligned decision lies within audit's ``BAND``
(0.3) of its threshold, either side, is given token vectors and the item is
compared again, so it is decided by the aligned form as the nearest ten are
(its alignment counts in the neighbourhood's mean, as theirs does). Both sides:
below the line are the missed repeats, above it the false joins; audit reads
the same band for the same reason (``audit_align``), so check and audit agree.
Far from the line the forms were not seen to part, and nothing is read.

Bounded: at most ``aligned_candidates`` more (the nearest by the judge's cosine
among those near the line), so a check aligns at most twice the cap; each costs
its text's token vectors once a process (about 10 ms for the dev streams'
median 40 tokens) and the item's candidates are compared once more when any is
added (the comparisons only, the search and loading are not repeated).
"""

from __future__ import annotations

from kbsearch.dedupe.audit_align import unaligned_near_line
from kbsearch.dedupe.check_reading import to_align
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.embedded import Embedded
from kbsearch.dedupe.results import Match


def near_line_past_cap(
    item: Embedded, known: list[Embedded], matches: list[Match], config: DedupeConfig
) -> list[Embedded]:
    """The candidates of ``known`` (decided as ``matches``, in order) without token vectors
    whose unaligned decision lies near the line, when the item has token vectors and the
    config an aligned form: at most ``aligned_candidates``, nearest by the judge's cosine."""
    aligned_form = config.aligned_same_item is not None or config.aligned_claims_same_item is not None
    if not aligned_form or config.aligned_candidates is None:
        return []  # no aligned decision, or every candidate aligned already
    if item.judge_tokens is None or not len(item.judge_tokens):
        return []  # no token encoder, or an item too long for the aligned decision
    near = [
        k
        for k, m in zip(known, matches, strict=True)
        if k.judge_tokens is None and k.record.id != item.record.id and unaligned_near_line(m)
    ]
    return to_align(item, near, config.aligned_candidates)
