"""Known records built ahead for a warm process's checks (``kbsearch serve --warm-records``).

A first check of an item meets some 35 candidates, most of which no earlier check had
built: each one's row, passage and judge vectors loaded, its text read (language, words,
numbers) and the rules' first reading of its names, numbers and title. A process that
stays builds them ahead, the newest records first, and keeps them as a check keeps its
candidates (``dedupe.kept_records``), across writes while their rows stay as they were:
after a write, the newest records not kept yet (those it added first) are built in turn.
A record is built as a check builds it, so a check decides as it would without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kbsearch.kb.facade import KnowledgeBase


def records_to_warm(kb: KnowledgeBase, count: int) -> tuple[int, list[int]]:
    """The index's generation now, and the rowids of its ``count`` newest records that are not
    kept yet, newest first. A kept record whose row a write changed is built again by the first
    check that meets it (``KeptRecords.take``): telling which did would read every kept row."""
    from kbsearch.dedupe.kept_records import kept_records

    with kb.store.snapshot():
        held = set(kept_records(kb.store).held())
        newest = kb.store.newest_rowids(count)
        return kb.store.generation, [rowid for rowid in newest if rowid not in held]


def warm_checks(kb: KnowledgeBase, rowids: list[int], room: int, generation: int) -> bool:
    """Build ``rowids`` for the checks that follow, with room for ``room`` records kept;
    False, building none, once a write has moved the index past ``generation``: the
    caller plans again (``records_to_warm``), the records that write added first."""
    from kbsearch.dedupe.check import Checker
    from kbsearch.dedupe.kept_records import kept_records

    kb.require_models()
    config = kb.dedupe_config()
    judge, tokens = kb.judging_models(config)
    with kb.store.snapshot():
        if kb.store.generation != generation:
            return False
        kept_records(kb.store).make_room(room)
        checker = Checker(kb.store, kb.encoder, config, judge=judge, tokens=tokens)
        for built in checker.load(rowids).values():
            built.read_first()
    return True
