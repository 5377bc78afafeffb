"""``kbsearch export``: stored records as the labelled stream rows ``kbsearch calibrate``
reads (docs/dedupe.md, "Calibrating a model of your own"), for a lead to label.

Each row is the record as ``ingest``'s JSONL reads it, plus the two keys calibrate needs:
``item``, the truth, left null for the lead to fill in (the same value on every row about
one item, say its arXiv id: a row repeating an earlier one gets that row's ``item``), and
``role``, ``both`` (checked against the earlier days, then stored, as the writer's records
were). ``source`` and ``position`` are left out: they place a record in its file here, and
the replay ingests the rows from files of its own. An undated record cannot be replayed
day by day; it is counted, not written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from kbsearch.filters import SearchFilter, require_limit
from kbsearch.kb.facade import KnowledgeBase

ROLE = "both"
"""The role an exported row gets: checked on its day, then stored."""
_LEFT_OUT = {"source", "position"}


@dataclass
class Exported:
    rows: int = 0
    undated: int = 0
    """Records the filter matched that have no date: calibrate cannot replay them."""


def export_stream(
    kb: KnowledgeBase, write: Callable[[str], object], flt: SearchFilter | None = None, limit: int | None = None
) -> Exported:
    """Write each dated record ``flt`` matches, oldest first, as one stream row (a JSON line)."""
    require_limit(limit)
    done = Exported()
    store = kb.store
    with store.snapshot():
        for record in store.iter_records(flt):
            if record.date is None:
                done.undated += 1
                continue
            if limit is not None and done.rows >= limit:
                break
            fields = json.loads(record.stored_json())
            row = {"item": None, "role": ROLE} | {k: v for k, v in fields.items() if k not in _LEFT_OUT}
            write(json.dumps(row, ensure_ascii=False) + "\n")
            done.rows += 1
    return done
