"""Records as a search result shows them, read without their JSON; ids by their start.

A hit needs a record's id, title, dates, ids and the head of its text. Its
stored JSON holds everything, claims included: for a record of megabytes (one
pasted line) parsing it costs more than the rest of the search. The columns
of ``records`` and the ``record_arxiv`` rows hold what a hit needs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from kbsearch.records import RecordHead
from kbsearch.store.sql import chunks, marks


def read_heads(db: sqlite3.Connection, rowids: Iterable[int], chars: int) -> dict[int, RecordHead]:
    """Row id → the record's head, its text cut to ``chars`` characters."""
    found: dict[int, RecordHead] = {}
    for chunk in chunks([int(r) for r in rowids]):
        ids: dict[tuple[int, str], list[str]] = {}
        # _rowid_ is the insertion order: the order the record lists its ids in.
        for rowid, arxiv_id, role in db.execute(
            f"SELECT rowid, arxiv_id, role FROM record_arxiv WHERE rowid IN ({marks(len(chunk))}) ORDER BY _rowid_",
            chunk,
        ):
            ids.setdefault((rowid, role), []).append(arxiv_id)
        rows = db.execute(
            "SELECT rowid, id, kind, title, substr(text, 1, ?1 + 1), date, instance, topic, section, source, category "
            f"FROM records WHERE rowid IN ({marks(len(chunk))})",
            [chars, *chunk],
        )
        for rowid, rid, kind, title, text, date, instance, topic, section, source, category in rows:
            found[rowid] = RecordHead(
                id=rid,
                kind=kind,
                title=title,
                text=text[:chars],
                text_cut=len(text) > chars,
                date=date,
                instance=instance,
                topic=topic,
                section=section,
                source=source,
                category=category,
                arxiv_ids=ids.get((rowid, "subject"), []),
                cited_ids=ids.get((rowid, "cited"), []),
            )
    return found


def ids_with_prefix(db: sqlite3.Connection, prefix: str, limit: int) -> list[str]:
    """Up to ``limit`` ids that start with ``prefix``, in order, read from the
    id index: ids compare as UTF-8 bytes, and no character sorts after U+10FFFF."""
    rows = db.execute(
        "SELECT id FROM records WHERE id >= ? AND id < ? ORDER BY id LIMIT ?", (prefix, prefix + "\U0010ffff", limit)
    )
    return [r[0] for r in rows]
