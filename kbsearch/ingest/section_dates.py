"""A living-doc section's dates across re-ingests: each section keeps its own.

A doc's sections are all read with the doc's last-updated date (``parse.doc``), so each
evening's fold, which moves that date on, re-dated every section, the unchanged ones too:
what the doc held since day 1 read as first seen on day 3, and a re-check of day 2 after
the fold compared with none of the doc (probe 23). Ingest therefore dates a section by
what is stored under its id:

- its title and text unchanged: it keeps its stored date (and, written as it was, its
  stored row and ``ingested_at``), whatever the doc's date now says;
- changed: it is dated by the new version (the doc's date), and keeps the day it was first
  stored and its text of that day as ``first_date`` and ``first_text``, so what it held
  before is not lost (``dedupe.verdict.held_since``).
"""

from __future__ import annotations

from kbsearch.records import Kind, Record


def dated_as_stored(record: Record, stored_json: str | None) -> Record:
    """``record``, a doc section read now, with the dates its stored version gives it (see the module)."""
    if record.kind is not Kind.doc_section or stored_json is None or record.date is None:
        return record
    old = Record.model_validate_json(stored_json)
    if old.kind is not Kind.doc_section or old.date is None:
        return record  # stored undated: no day it is known to have held anything
    if (old.title, old.text) == (record.title, record.text):
        day = min(old.date, record.date)
        first = (old.first_date, old.first_text) if old.first_date is not None and old.first_date < day else None
    elif old.date < record.date:
        first = (old.first_date, old.first_text) if old.first_date is not None else (old.date, old.text)
        day = record.date
    else:
        return record  # the doc says an earlier day than stored: its word stands
    return record.model_copy(
        update={"date": day, "first_date": first[0] if first else None, "first_text": first[1] if first else None}
    )
