"""``check --accept``'s storing under the writer lock (``accept_judged``), and on a team's first day: no index yet.

A team starting its knowledge base with its first briefing runs the gate it
will run every day (``kbsearch check today.md --accept && publish today.md``);
with no index every item is NEW, so the gate creates the index and stores
them, as a first ``ingest`` would: bound to the model the check used (its
manifest written by the first write), and made under the writer lock. A
failed or refused first accept (an error, Ctrl-C, a DUPLICATE inside the
input itself) leaves no index folder behind, as a failed first ingest does.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kbsearch.dedupe.check_input import CheckInput
    from kbsearch.dedupe.config import DedupeConfig
    from kbsearch.dedupe.results import CheckResult
    from kbsearch.kb.facade import KnowledgeBase
    from kbsearch.store import Store


Judged = tuple[int, "Callable[[], CheckResult]"]  # the generation a check read, how to check again


def accept_judged(
    kb: KnowledgeBase,
    result: CheckResult,
    read: CheckInput,
    on_wait: Callable[[], None] | None,
    modes: tuple[bool, bool],
    judged: Judged,
) -> CheckResult:
    """Store the checked ``result`` of ``read`` unless refused; ``modes``: replace, skip_duplicates."""
    replace, skip = modes
    if not result.refuse(skip):
        with kb.writing(on_wait) as store:
            if store.generation != judged[0]:
                # Another writer stored records since this check read the index (two gates at
                # once): judged again under the lock, the later of two repeats is a DUPLICATE.
                result = judged[1]()
            if not result.refuse(skip):
                store_accepted(kb, store, result, read, replace)
    return result


class _Refused(Exception):
    """Nothing may be stored: leave the writer so that the index it created is removed."""

    def __init__(self, result: CheckResult) -> None:
        super().__init__(result.accept_refused)
        self.result = result


def first_accept(
    kb: KnowledgeBase,
    read: CheckInput,
    input_name: str,
    on_wait: Callable[[], None] | None,
    options: tuple[dt.date | None, bool, DedupeConfig | None, bool],
) -> CheckResult:
    """Create the index at ``kb.root`` and accept ``read`` into it; ``options``: as_of, replace, config,
    skip_duplicates (an item repeating an earlier one of the same input is left out, the rest stored)."""
    as_of, replace, config, skip = options
    try:
        with kb.writing(on_wait, create=True) as store:  # the empty index, created under the lock
            result = kb._check_items(read, input_name, None, as_of, config=config)
            if result.refuse(skip):
                raise _Refused(result)
            store_accepted(kb, store, result, read, replace)
    except _Refused as refused:
        return refused.result
    result.created_index = str(kb.root)
    return result


def store_accepted(kb: KnowledgeBase, store: Store, result: CheckResult, read: CheckInput, replace: bool) -> None:
    """Store the checked items of ``read``, under the writer lock ``store`` was given by."""
    from kbsearch.ingest.accepting import accept

    source = (read.file, read.mentions)
    load, judge = (lambda: kb.encoder), kb._judging()
    accept(store, result, read.items, source, replace=replace, model=kb.spec.name, load_encoder=load, judge=judge)
