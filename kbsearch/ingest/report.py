"""What one ingest did, as ``kbsearch ingest`` prints it (text) or gives it (``--json``)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from kbsearch.store.skips import RememberedSkip

SHOWN_IDS = 1_000
"""The ids listed per kind of change (``added_ids``, ``updated_ids``, ``moved``): the counts are the totals."""
SHOWN_REMOVED = 20


class FileProblem(BaseModel):
    path: str
    line: int | None = None
    message: str

    def one_line(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


class MovedRecord(BaseModel):
    """A stored record now read from another file, its text and fields the same."""

    id: str
    to: str
    """The file it is read from now."""
    was: str | None
    """The file it was read from before."""


class SkippedRecord(BaseModel):
    """An item left out because ``check --accept --skip-duplicates`` skipped it, unchanged since."""

    id: str
    repeats: list[str]
    """The records it is a DUPLICATE of, as the accept found them."""
    skipped_at: str
    """When the accept skipped it (UTC, ISO 8601)."""
    file: str | None = None
    """The file the accept read it from."""

    def one_line(self) -> str:
        of = ", ".join(self.repeats) or "a stored record"
        return (
            f"{self.id}: skipped: a DUPLICATE of {of}, left out by check --accept --skip-duplicates "
            f"on {self.skipped_at[:10]} (--include-skipped stores it)"
        )


class IngestReport(BaseModel):
    """What one ingest did; printed as text or JSON by the CLI."""

    model: str
    files: int = 0
    records: int = 0
    added: int = 0
    updated: int = 0
    """Records whose text or fields changed (read from the same file or, taken over, from another)."""
    moved: int = 0
    """Records the same as stored, now read from another file (the stored one's file is gone)."""
    unchanged: int = 0
    removed: int = 0
    added_ids: list[str] = Field(default_factory=list)
    """The first ``SHOWN_IDS`` of the ids added."""
    updated_ids: list[str] = Field(default_factory=list)
    """The first ``SHOWN_IDS`` of the ids updated."""
    moved_ids: list[MovedRecord] = Field(default_factory=list)
    """The first ``SHOWN_IDS`` of the records moved, each with its files."""
    removed_ids: list[str] = Field(default_factory=list)
    """The first ``SHOWN_REMOVED`` of the ids ``--prune`` removed: a user sees what went."""
    embedded: int = 0
    judge_embedded: int = 0
    """Whole texts the judge model embedded in this run (one per new or changed record)."""
    judge_deferred: int = 0
    """Whole texts whose judge vector was left to the background fill the ingest started
    (``kbsearch/kb/judge_fill.py``): a check computes one it meets before the fill wrote it."""
    skipped: list[SkippedRecord] = Field(default_factory=list)
    """Items left out as ``check --accept --skip-duplicates`` left them out (unchanged since); not counted elsewhere."""
    refused: list[FileProblem] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    """About an input, no problem: a briefing that says it has 0 increments today (read as a file with no records)."""
    seconds: float = 0.0
    """The run's own work: reading, embedding and writing, without ``waited``."""
    waited: float = 0.0
    """Seconds spent waiting for another writer (the writer lock) before writing."""

    def note_change(self, rid: str, stored: tuple[str, str | None] | None, same_text: bool, file: str) -> None:
        """Count a record written: new (``stored`` None), changed, or the same moved to ``file``."""
        if stored is None:
            self.added += 1
            if len(self.added_ids) < SHOWN_IDS:
                self.added_ids.append(rid)
        elif same_text:
            self.moved += 1
            if len(self.moved_ids) < SHOWN_IDS:
                self.moved_ids.append(MovedRecord(id=rid, to=file, was=stored[1]))
        else:
            self.updated += 1
            if len(self.updated_ids) < SHOWN_IDS:
                self.updated_ids.append(rid)

    def note_skipped(self, skip: RememberedSkip) -> None:
        """Count an item left out because an accept skipped it."""
        if len(self.skipped) < SHOWN_IDS:
            self.skipped.append(
                SkippedRecord(id=skip.id, repeats=skip.repeats, skipped_at=skip.skipped_at, file=skip.file)
            )
