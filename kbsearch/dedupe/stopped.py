"""An id-table row calling an id new whose item the gate stopped.

A briefing's id table is stored with its file whatever the gate did with its items: when
``check --accept --skip-duplicates`` left out the item about the row's id as a DUPLICATE
(``store.skips``), the row still says "本次新增" and audit still finds an earlier record of the
id (probe 38: noa's row "2611.10231 本次新增" beside an item skipped as kai's repeat). The
writer's claim was still wrong, and a writer's rate of such claims is what the flag counts, so
the flag stays; but the knowledge base never took the item in, so the flag says the gate stopped
it (``Flag.stopped_at_gate``) rather than reading as a repeat that got stored.

The skip remembers the item's id, file and the records it repeats, not its ids: the row's item is
the file's skipped item that repeats a record about the row's id, when no stored record of the
same briefing is about it (then the row is on that stored item, and the flag is the plain one).
"""

from __future__ import annotations

from kbsearch.records import IdMention
from kbsearch.store import Store
from kbsearch.store.skips import RememberedSkip, skipped_from


def stopped_item(store: Store, mention: IdMention) -> RememberedSkip | None:
    """The skipped item the row ``mention`` calls new, or None (stored, or no skip repeats its id)."""
    if mention.source is None or mention.arxiv_id is None:
        return None
    skips = skipped_from(store.db, mention.source)
    if not skips:
        return None
    about = {r.id for r in store.by_rowids(store.rowids_with_arxiv([mention.arxiv_id], role="subject")).values()}
    briefings = {skip.id.split("#")[0] for skip in skips}
    if any(rid.split("#")[0] in briefings for rid in about):
        return None  # a stored item of this briefing is about the id: the row is on it
    return next((skip for skip in skips if about & set(skip.repeats)), None)


def stopped_words(skip: RememberedSkip) -> str:
    """The flag's note: which item the gate stopped, and as whose repeat."""
    return (
        f"; stopped at the gate: {skip.id} was skipped as a DUPLICATE of {', '.join(skip.repeats)} "
        "(check --accept --skip-duplicates) and never stored"
    )
