"""Which models an index is bound to, as its meta table records them.

An index has one *model*, whose vectors every passage has (search, claims,
retrieval), and at most one *judge*, whose vector every record's whole text
has (the same-item decision reads both). Vectors of another model would sit
on another cosine scale, so a mismatch is refused, naming the fix: ``kbsearch
reindex`` embeds what the new pair lacks and keeps what it already has.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kbsearch.errors import KbError
from kbsearch.models import how_to_add, line_of, load_models, models_file
from kbsearch.store.sql import read_meta, write_meta

if TYPE_CHECKING:
    from kbsearch.store.facade import Store

MODELS_DOC = "docs/models.md"


def require_model(root: Path, built_with: str | None, model: str, count: Callable[[], int]) -> None:
    """``count``: the index's records, counted only for another model (every check asks this,
    and ``count(*)`` reads every row: 35 ms at 1M records)."""
    if built_with is not None and built_with != model and count() > 0:
        listed = built_with in {spec.name for spec in load_models()}
        other = f"pass --model {built_with}" if listed else how_to_add(built_with)
        raise KbError(
            f"the index at {root} was built with model {built_with!r}, not {model!r}",
            hint=f"run 'kbsearch reindex --model {model}' to switch it, or {other}",
        )


def require_models(store: Store, model: str, judge: str | None) -> None:
    """Refuse a model or judge other than the index's own: what check, ingest,
    audit, similar and explain require of models.txt, and what doctor reports,
    so that the two never disagree."""
    store.require_model(model)
    store.require_judge(model, judge)


def require_judge(root: Path, model: str, kept: str | None, judge: str | None, count: Callable[[], int]) -> None:
    """Refuse to judge with, or add records for, a judge other than the index's own
    (``count`` counted only then, as ``require_model``'s)."""
    if kept == judge or count() == 0:
        return
    if kept is None:
        raise KbError(
            f"the index at {root} has no judge vectors, and model {model!r} names judge {judge!r} in {models_file()}",
            hint=f"run 'kbsearch reindex' to add them (one {judge!r} vector per record), "
            f"or drop judge= from {line_of(model)} to let it decide alone ({MODELS_DOC})",
        )
    if judge is None:
        raise KbError(
            f"the index at {root} keeps judge vectors of {kept!r}, but model {model!r} names no judge "
            f"in {models_file()}",
            hint=f"add judge={kept} to {line_of(model)}, or run 'kbsearch reindex' to go on without a judge",
        )
    raise KbError(
        f"the index at {root} keeps judge vectors of {kept!r}, not {judge!r}",
        hint=f"run 'kbsearch reindex' to embed {judge!r}'s vectors, or set judge={kept} on {line_of(model)}",
    )


def bind_judge(db: sqlite3.Connection, judge: str | None) -> None:
    """Record the judge (or its absence) inside the caller's write transaction."""
    if judge is None:
        db.execute("DELETE FROM meta WHERE key = 'judge'")
    else:
        write_meta(db, "judge", judge)


def kept_judge(db: sqlite3.Connection) -> str | None:
    return read_meta(db, "judge")
