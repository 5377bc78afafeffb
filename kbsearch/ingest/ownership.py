"""Which file a record id belongs to, so that one record never silently replaces another.

An id is the record's name across runs: ingesting a file again updates its
records in place. The same id read from a second file would replace the
first file's record ("1 updated"), and the first record would be gone. So a
file whose ids another file already holds is refused, naming both files,
whether the other was read earlier in the same run or stored before and is
still on disk. A stored record whose file is gone was moved: the new file
takes it over.

When a file gives a record a new id (after a change in how ids are made,
such as cards named by their card number instead of their paper's arXiv id),
the stored record at the same place of the same file, of the same kind and
with the same content, whose old id the file no longer gives, is renamed to
it: its row, passages and vectors are kept, and no record is left behind
under the old id. Only the same content of the same day: an inbox file reused
from day to day holds another item at the same place tomorrow, or the same
item again, and either is a record of its own, never a rename of yesterday's.

Inputs are read as streams (a JSONL file may hold a million records), so the
ids seen in this run live in the ingest's ledger, a temporary SQLite table,
and the checks run a chunk of ids at a time.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Protocol

from kbsearch.ingest.sources import same_file
from kbsearch.records import IdMention, Record
from kbsearch.store import Store
from kbsearch.store.ledger import IngestLedger

HINT = (
    "give one of them its own id (a card its own card number); if this file replaces the other, "
    "delete the other and ingest again with --prune"
)
CHUNK = 4_096


class Input(Protocol):
    source: str
    id_mentions: list[IdMention]
    not_records: list[str]

    def iter_records(self) -> Iterator[Record]: ...


def clashes(store: Store, ledger: IngestLedger, inputs: Sequence[Input], chunk: int = CHUNK) -> dict[str, str]:
    """File → why it is refused, for the files holding an id that another file owns.

    The ids of the files kept are left in ``ledger``, each with its file;
    ids are checked ``chunk`` at a time."""
    refused: dict[str, str] = {}
    for item in inputs:
        why = _clash(store, ledger, item, chunk)
        if why is not None:
            ledger.forget_file(item.source)
            refused[item.source] = why
    return refused


def _clash(store: Store, ledger: IngestLedger, item: Input, chunk: int) -> str | None:
    records = item.iter_records()
    while ids := list(dict.fromkeys(r.id for r in itertools.islice(records, chunk))):
        for rid, earlier in ledger.seen_from(ids).items():
            if earlier != item.source:
                return f"record id {rid!r} also comes from {earlier}, read earlier in this run"
        for rid, file in store.column_of_ids(ids, "file").items():
            if file is not None and not same_file(file, item.source) and Path(file).exists():
                return f"record id {rid!r} is already stored from {file}"
        ledger.mark_seen(ids, item.source)
    return None


def renames(store: Store, ledger: IngestLedger, item: Input) -> dict[str, str]:
    """Old id → new id for the records of ``item`` that take over a stored
    record of the same file at the same place (see the module doc). Reads the
    file again only when some stored record of it has an id it no longer gives."""
    gone = ledger.unseen_of_file(item.source)
    if not gone:
        return {}
    slots: dict[tuple[int, str, str, str], str] = {}
    for rid, (data, _file) in ledger.stored_rows(gone).items():
        slots[_slot(Record.from_document(data))] = rid
    found: dict[str, str] = {}
    records = item.iter_records()
    while chunk := list(itertools.islice(records, CHUNK)):
        stored = store.column_of_ids([r.id for r in chunk], "file")
        for record in chunk:
            old = slots.get(_slot(record))
            if record.id not in stored and old is not None and old not in found:
                found[old] = record.id
    return found


def _slot(record: Record) -> tuple[int, str, str, str]:
    """What a renamed record keeps: its place in the file, kind, content and day. A reused
    inbox file repeating yesterday's item word for word at the same place tomorrow
    holds a record of its own, the repeat, not a new name for yesterday's."""
    return record.position, record.kind.value, record.content_hash, str(record.date)


def merged_mentions(store: Store, source: str, mentions: list[IdMention], days: set[str]) -> list[IdMention]:
    """The id-table rows to keep for ``source``: ``mentions``, plus the stored rows
    of the days the file no longer holds (what a reused inbox file held on earlier
    days). ``days``: those of the file's records now."""
    covered = days | {str(m.date) for m in mentions}
    stored = (IdMention.model_validate_json(data) for data in store.mentions_json(source))
    return [m for m in stored if str(m.date) not in covered] + mentions


_DAY_OF_ID = re.compile(r"@(\d{4}-\d{2}-\d{2})#")
"""The day in the id of an inbox file's item (``parse.briefing.dated_stem``)."""


def no_longer_yielded(unseen: list[str], days: set[str]) -> list[str]:
    """Of the stored ids a file did not yield this time, those ``--prune`` removes: not
    the items of other days of an inbox file reused from day to day, which holds one
    day at a time. Yesterday's items are not gone from it; they were yesterday's."""
    return [rid for rid in unseen if (day := _DAY_OF_ID.search(rid)) is None or day.group(1) in days]


def day_keyed(ids: list[str]) -> bool:
    """Whether some of the ids are a reused inbox file's items of a given day."""
    return any(_DAY_OF_ID.search(rid) for rid in ids)


def stale_line(ids: list[str], file: str, what_to_do: str, shown: int = 3) -> str:
    """One line naming records kept from ``file`` that it no longer holds (count and first ids)."""
    more = ", …" if len(ids) > shown else ""
    noun = "record" if len(ids) == 1 else "records"
    verb = "is" if len(ids) == 1 else "are"
    return f"{len(ids)} {noun} from {file} {verb} no longer in it (ids {', '.join(ids[:shown])}{more}): {what_to_do}"


def moved_away(store: Store, ledger: IngestLedger, folders: list[Path], sources: set[str]) -> list[str]:
    """Without --prune: one line per gone file that an input seems to replace (the same
    file name elsewhere, or another name in the same folder: a moved or renamed doc),
    whose records are still stored, so each section is found twice."""
    names, parents = {Path(s).name for s in sources}, {Path(s).parent for s in sources}
    lines = []
    for file in store.files():
        path = Path(file)
        if file in sources or path.exists() or (path.name not in names and path.parent not in parents):
            continue
        if ids := ledger.unseen_of_file(file):
            inside = any(path.is_relative_to(folder) for folder in folders)
            fix = "run with --prune to drop them" if inside else "the file is gone: remove them ('kbsearch remove ID…')"
            lines.append(stale_line(ids, file, fix))
    return lines
