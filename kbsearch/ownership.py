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
the stored record at the same place of the same file, of the same kind, whose
old id the file no longer gives, is renamed to it: its row, passages and
vectors are kept, and no record is left behind under the old id.
"""

from __future__ import annotations

import json
from pathlib import Path

from kbsearch.records import ParsedFile
from kbsearch.store import Store

HINT = (
    "give one of them its own id (a card its own card number); if this file replaces the other, "
    "delete the other and ingest again with --prune"
)


def clashes(store: Store, parsed: list[ParsedFile]) -> dict[str, str]:
    """File → why it is refused, for the files holding an id that another file owns."""
    owners: dict[str, str] = {}
    refused: dict[str, str] = {}
    for result in parsed:
        ids = list(dict.fromkeys(r.id for r in result.records))
        why = _clash(store, result.source, ids, owners)
        if why is not None:
            refused[result.source] = why
            continue
        owners.update(dict.fromkeys(ids, result.source))
    return refused


def _clash(store: Store, source: str, ids: list[str], owners: dict[str, str]) -> str | None:
    for rid in ids:
        if rid in owners:
            return f"record id {rid!r} also comes from {owners[rid]}, read earlier in this run"
    for rid, file in store.files_of_ids(ids).items():
        if file is not None and file != source and Path(file).exists():
            return f"record id {rid!r} is already stored from {file}"
    return None


def renames(result: ParsedFile, stored: dict[str, str], taken: set[str]) -> dict[str, str]:
    """Old id → new id for the records of ``result`` that take over a stored
    record of the same file at the same place (see the module doc). ``stored``
    is the file's stored records (id → JSON); ``taken`` the ids stored from
    other files, which a new id must not be."""
    new_ids = {r.id for r in result.records}
    slots: dict[tuple[int, str], str] = {}
    for rid, data in stored.items():
        if rid not in new_ids:
            payload = json.loads(data)
            slots[(int(payload.get("position", 0)), str(payload.get("kind")))] = rid
    found: dict[str, str] = {}
    for record in result.records:
        old = slots.get((record.position, record.kind.value))
        if record.id not in stored and record.id not in taken and old is not None and old not in found:
            found[old] = record.id
    return found
