"""What the lexical index holds for one record, written inside the transaction that writes it.

The record's FTS row (``document``: its text folded, with its figures in their other spelling), its
trigrams' counts (``lexical_counts``) and its exact references (``record_refs``: GitHub repos, URLs)
are replaced together by ``write`` and dropped together by ``delete``, so they never drift apart;
``rowids_with_refs`` finds the records carrying a reference. What searches the text is ``store.lexical``."""

from __future__ import annotations

import sqlite3

from kbsearch.records import Record
from kbsearch.store.lexical import FTS_TABLE
from kbsearch.store.lexical_counts import PendingCounts
from kbsearch.text.figures import with_figures
from kbsearch.text.folding import fold
from kbsearch.text.ids import extract_urls, record_github_repos


def document(record: Record) -> tuple[str, str, str]:
    """(title, body, meta) as indexed, folded: body is the text plus any claim
    it lacks, then any caveat (警示) it lacks, the writer's own words about the
    item; meta holds sources, tags and the relation to the living document.
    Each ends with its figures in the one spelling it lacks (``text.figures``);
    the caveats, added to the body later (migration 7), end with their own."""
    body = [record.text] + [c for c in record.claims if c not in record.text]
    meta = [*record.sources, *record.tags, record.relation or ""]
    parts = (record.title, "\n".join(p for p in body if p), "\n".join(p for p in meta if p))
    title, text, about = (with_figures(fold(part)) for part in parts)
    caveats = "\n".join(c for c in record.caveats if c and c not in record.text)
    if caveats:
        text = f"{text}\n{with_figures(fold(caveats))}" if text else with_figures(fold(caveats))
    return title, text, about


def record_refs(record: Record) -> list[str]:
    """Exact references the record carries, as ``github:owner/repo`` and ``url:…``.

    A bare ``owner/repo`` counts where the text marks it as a repo
    (``text.ids.record_github_repos``). The relation text is left out: it
    names related work, not the record's own subject.
    """
    text = record.reference_text()
    return [f"github:{r}" for r in record_github_repos(text)] + [f"url:{u}" for u in extract_urls(text)]


def write(db: sqlite3.Connection, rowid: int, record: Record, counts: PendingCounts) -> None:
    """Replace the record's FTS row, its trigrams' counts and references (call
    inside the write transaction; ``counts.flush`` before it commits)."""
    delete(db, rowid, counts)
    row = document(record)
    db.execute(f"INSERT INTO {FTS_TABLE}(rowid, title, body, meta) VALUES (?, ?, ?, ?)", (rowid, *row))
    counts.add(row)
    db.executemany(
        "INSERT OR IGNORE INTO record_refs(rowid, ref) VALUES (?, ?)", [(rowid, ref) for ref in record_refs(record)]
    )


def delete(db: sqlite3.Connection, rowid: int, counts: PendingCounts) -> None:
    # FTS5 tables take no foreign keys, so the cascade from records never reaches them.
    counts.remove_stored(db, rowid)
    db.execute(f"DELETE FROM {FTS_TABLE} WHERE rowid = ?", (rowid,))
    db.execute("DELETE FROM record_refs WHERE rowid = ?", (rowid,))


def rowids_with_refs(db: sqlite3.Connection, refs: list[str]) -> list[int]:
    if not refs:
        return []
    marks = ",".join("?" * len(refs))
    return [
        r[0] for r in db.execute(f"SELECT DISTINCT rowid FROM record_refs WHERE ref IN ({marks}) ORDER BY rowid", refs)
    ]
