"""``kbsearch explain FILE#N B``: an input's item N, stored or not, against stored record B.

An editor questions a DUPLICATE the writer then dropped, which no record holds (probe 23:
"no record with id spark/2026-10-03-spark-infra-e1prep#1"). The file is read and checked
as ``check FILE`` reads and checks it (the same code path, items before N in the file
among its candidates, ``--as-of``); the match shown is check's own of B, and the rules
read the item as check embedded it.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from kbsearch.errors import KbError

if TYPE_CHECKING:
    from kbsearch.dedupe.config import DedupeConfig
    from kbsearch.dedupe.results import Explanation
    from kbsearch.kb.facade import KnowledgeBase


def explain_input(
    kb: KnowledgeBase,
    path: str,
    number: int,
    b: str,
    config: DedupeConfig,
    as_of: dt.date | None = None,
    claim: int | None = None,
) -> Explanation:
    """Why check calls B the same item as item ``number`` of ``path`` or not (0: its only item)."""
    from kbsearch.dedupe.check_input import read_check_input
    from kbsearch.dedupe.claim_reasons import explain_claim
    from kbsearch.dedupe.item_words import match_worded
    from kbsearch.dedupe.related import explain_embedded, load_embedded
    from kbsearch.kb.explaining_check import SHOW_ALL, as_check_decided, as_check_reads, check_of, form_why

    read = read_check_input(path, None)
    items = read.items
    if number == 0 and len(items) == 1:
        number = 1
    if not 1 <= number <= len(items):
        raise KbError(
            f"{path}: item {number or '(none given)'}: the file has {len(items)} item{'s' * (len(items) != 1)}"
            + (f", numbered 1 to {len(items)}" if items else ""),
            hint="give A as FILE#N, N the number check gives the item: the #N of its id",
        )
    record = items[number - 1]
    kb.require_models()
    with kb.store.snapshot():
        # The file checked as ``check FILE`` checks it, and the item read as check reads it (its
        # key points, the judge's token alignment), so the verdict and the deciding rule agree;
        # check's own decision differing is said in a note. The items are embedded once, for both.
        checker = check_of(kb, config.model_copy(update={"matches_shown": SHOW_ALL}), as_of)
        with checker.reading(items) as reading:
            item = checker.checked(reading)[number - 1]
            if claim is not None and not 1 <= claim <= len(item.claims):
                count = len(item.claims)
                raise KbError(
                    f"claim {claim}: item {number} of {path} has {count} claim{'s' * (count != 1)}, "
                    f"numbered 1 to {count}",
                    hint="give N as check numbers the item's claims ('n' in new_claims)",
                )
            same = [m.id for m in item.matches if m.same_item]
            loaded = load_embedded(kb.store, [b, *same], config.judge)
            a, other, known = as_check_reads(kb, reading, number - 1, b, config, None, as_of)
        # Names counted as check counted them, the file's unstored items among the holders.
        tokens = lambda: checker.tokens  # noqa: E731 (audit's view aligns a join or a pair near the line as audit does)
        audit_checker = lambda: check_of(kb, config, None)  # noqa: E731 (audit's view decides as audit does)
        explained = explain_embedded(
            kb.store, a, other, config, item.as_of, known, checker.name_count, tokens, audit_checker
        )
        why = explain_claim(item, claim, record, [loaded[i] for i in same], b, config) if claim else None
    checked = next((m for m in item.matches if m.id == b), None)
    notes = [f"A is item {number} of {path}, read as 'kbsearch check' reads it"]
    notes += as_check_decided(explained.match, checked, f"checking {path}")
    return explained.model_copy(
        update={
            "match": match_worded(explained.match, item.claims),
            "form_why": form_why(a, other, explained.match, config),
            "claim": why,
            "notes": notes + explained.notes,
            "as_of": item.as_of,
        }
    )
