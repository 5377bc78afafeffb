"""Files that hold the same text as another file: a briefing saved twice under two names.

A copy's records get ids of their own (an id is made from the file's name), so
nothing in ``ownership`` stops it, and every item would be stored twice: search
finds it twice, and audit counts the second as a repeat of the first, the copy
possibly first. So a file whose records are, text for text, those of another
input of the same run, or of a stored file still on disk, is refused, naming
the other: the same texts of the same writer on the same day. Of two inputs
of one run the shorter name is kept (a copy's name is usually the original's
plus "-copy", " (1)", "_2"), then the first read.

Only whole files count: two files sharing some items are two briefings that
repeat each other, which is what ``check`` and ``audit`` are for. JSON Lines
files (a stream, perhaps of a million records) are not compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kbsearch.ingest.sources import same_file
from kbsearch.records import ParsedFile
from kbsearch.store import Store
from kbsearch.store.ledger import IngestLedger

WHAT_TO_DO = "delete one of the two files; if one replaces the other, delete the other and ingest again with --prune"


def _texts(item: object) -> tuple[str, ...] | None:
    """The file's records as a copy repeats them: text (hash), writer and day, sorted; None
    when it is not compared. Another writer's or another day's file of the same text is a
    repeat, which audit credits to the first, not a copy."""
    if not isinstance(item, ParsedFile) or not item.records:
        return None
    return tuple(sorted(copy_key(r.content_hash, r.instance, r.date) for r in item.records))


def copy_key(content_hash: str, instance: object, date: object) -> str:
    return f"{content_hash} {instance or ''} {date or ''}"


def copies_in_run(inputs: Sequence[object]) -> dict[str, str]:
    """Source → why it is refused, for the inputs holding the same texts as another of this run."""
    groups: dict[tuple[str, ...], list[ParsedFile]] = {}
    for item in inputs:
        if (texts := _texts(item)) is not None:
            assert isinstance(item, ParsedFile)
            groups.setdefault(texts, []).append(item)
    refused: dict[str, str] = {}
    for same in groups.values():
        kept = min(same, key=lambda p: len(Path(p.source).name))
        for item in same:
            if item is not kept:
                why = f"the same text as {kept.source}, also read in this run: not stored twice"
                refused[item.source] = f"{why} ({WHAT_TO_DO})"
    return refused


def copies_of_stored(store: Store, ledger: IngestLedger, inputs: Sequence[object]) -> dict[str, str]:
    """Source → why it is refused, for the inputs not stored yet whose texts are those of a
    stored file still on disk and not read in this run (that one would be refused as a copy here)."""
    sources = {getattr(item, "source", None) for item in inputs}
    refused: dict[str, str] = {}
    for item in inputs:
        if (texts := _texts(item)) is None:
            continue
        assert isinstance(item, ParsedFile)
        own = store.column_of_ids([r.id for r in item.records], "file")
        if any(same_file(file, item.source) for file in own.values()):
            continue  # stored from this very file: ingested again, not a copy
        for file in ledger.files_holding(list({t.split()[0] for t in texts})):
            if file in sources or same_file(file, item.source) or not Path(file).exists():
                continue
            if tuple(sorted(copy_key(*row) for row in ledger.copy_keys_of_file(file))) == texts:
                refused[item.source] = f"the same text as {file}, stored already: not stored twice ({WHAT_TO_DO})"
                break
    return refused
