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
    from kbsearch.dedupe.rules import Embedded
    from kbsearch.kb.facade import KnowledgeBase
    from kbsearch.records import Record

SHOW_ALL = 1_000_000  # check's matches, every one it compared, not only the first shown


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
    from kbsearch.dedupe.related import explain_embedded, load_embedded

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
    kb._require_models()
    result = kb._check_items(read, path, None, as_of, config=config.model_copy(update={"matches_shown": SHOW_ALL}))
    item = result.items[number - 1]
    if claim is not None and not 1 <= claim <= len(item.claims):
        count = len(item.claims)
        raise KbError(
            f"claim {claim}: item {number} of {path} has {count} claim{'s' * (count != 1)}, numbered 1 to {count}",
            hint="give N as check numbers the item's claims ('n' in new_claims)",
        )
    with kb.store.snapshot():
        same = [m.id for m in item.matches if m.same_item]
        loaded = load_embedded(kb.store, [b, *same], config.judge)
        explained = explain_embedded(kb.store, _embedded(kb, record, config, as_of), loaded[b], config, item.as_of)
        why = explain_claim(item, claim, record, [loaded[i] for i in same], b, config) if claim else None
    checked = next((m for m in item.matches if m.id == b), None)
    notes = [f"A is item {number} of {path}, checked as 'kbsearch check' checks it; the match is check's own"]
    if checked is None:
        notes.append(
            "check did not compare B with this item (not among its candidates): its verdict does not rest "
            "on B; the match is how the rules read the pair"
        )
    return explained.model_copy(
        update={
            "match": checked or explained.match,
            "claim": why,
            "notes": notes + explained.notes,
            "as_of": item.as_of,
        }
    )


def _embedded(kb: KnowledgeBase, record: Record, config: DedupeConfig, as_of: dt.date | None) -> Embedded:
    """The item with the vectors check gives an incoming item (its passages', the judge's)."""
    from kbsearch.dedupe.check import Checker
    from kbsearch.runtime.overlap import Pipeline

    judge, tokens = kb._judging_models(config)
    checker = Checker(kb.store, kb.encoder, config, as_of, judge=judge, tokens=tokens)
    with Pipeline() as beside:
        [embedded], judged = checker._embed([record], beside)
        judged()
    return embedded
