"""``kbsearch explain A B [--claim N]``: the pair's judgement, and with ``claim`` why check
calls claim N of A known or new.

The claim is decided by ``check`` itself: A's stored record is checked as if it came in
again (its own stored copy left out, as check leaves out an item stored with its very
content, and what is dated after A hidden), and ``claim_reasons`` reads that check's
decision of the claim rule by rule, so the answer is check's.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from kbsearch.errors import KbError

if TYPE_CHECKING:
    from kbsearch.dedupe.config import DedupeConfig
    from kbsearch.dedupe.results import Explanation
    from kbsearch.kb.facade import KnowledgeBase


def explain(
    kb: KnowledgeBase,
    a: str,
    b: str,
    config: DedupeConfig | None = None,
    as_of: dt.date | None = None,
    claim: int | None = None,
    file_item: int | None = None,
) -> Explanation:
    """Why B is or is not the same item as A (``as_of``: as a check that day read it); with
    ``claim`` (from 1), why check calls that claim of A known or new. With ``file_item`` (from 1;
    0: the file's only item), A is a file check reads and the item is its item ``file_item``:
    stored or not (a DUPLICATE the writer dropped), it is checked as ``check A`` checks it."""
    if file_item is not None:
        from kbsearch.kb.explaining_input import explain_input

        return explain_input(kb, a, file_item, b, config or kb.dedupe_config(claims=claim is not None), as_of, claim)
    from kbsearch.dedupe.claim_inputs import claims_of
    from kbsearch.dedupe.claim_reasons import explain_claim
    from kbsearch.dedupe.item_words import match_worded
    from kbsearch.dedupe.related import explain_embedded, load_embedded
    from kbsearch.kb.explaining_check import (
        SHOW_ALL,
        as_came_in,
        as_check_decided,
        as_check_reads,
        came_in_otherwise,
        check_of,
        form_why,
    )
    from kbsearch.store import SearchFilter

    kb.require_models()
    config = config or kb.dedupe_config(claims=claim is not None)
    with kb.store.snapshot():
        record = load_embedded(kb.store, [a, b], config.judge)[a].record  # RecordNotFound names a missing id
        # Check itself, re-run on A as it came in (its day, the records stored before it), and
        # explain's reading, as check reads A coming in (its key points, the judge's token
        # alignment): A embedded once, for both.
        checker = check_of(kb, config.model_copy(update={"matches_shown": SHOW_ALL}), as_of)
        with checker.reading([record]) as read:
            flt = SearchFilter(exclude_ids=[a], not_after=as_of)
            item, other, known = as_check_reads(kb, read, 0, b, config, flt, as_of)
            explained = explain_embedded(
                kb.store,
                item,
                other,
                config,
                as_of,
                known,
                tokens=lambda: checker.tokens,
                checker=lambda: check_of(kb, config, None),
            )
            checked = checker.checked(read)[0]
            then = as_came_in(kb.store, item, other, config, as_of, known)
        own = next((m for m in checked.matches if m.id == b), None)
        how = f"re-run on A as it came in (records up to {checked.as_of or 'any day'}, stored before A)"
        explained = explained.model_copy(
            update={
                "match": match_worded(explained.match, checked.claims),
                "form_why": form_why(item, other, explained.match, config),
                "notes": explained.notes
                + as_check_decided(explained.match, own, how)
                + came_in_otherwise(explained.match, then, own),
            }
        )
        if claim is None:
            return explained
        count = len(claims_of(record))
        if not 1 <= claim <= count:
            raise KbError(
                f"claim {claim}: record {a!r} has {count} claim{'s' * (count != 1)}, numbered 1 to {count}",
                hint="give N as check numbers A's claims ('n' in new_claims)",
            )
        same = [m.id for m in checked.matches if m.same_item]
        loaded = load_embedded(kb.store, same, config.judge)
        why = explain_claim(checked, claim, record, [loaded[i] for i in same], b, config)
    return explained.model_copy(update={"claim": why})
