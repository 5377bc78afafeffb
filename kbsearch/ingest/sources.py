"""How a record's file is spelled in the index, and which spellings name the same file.

One spelling: the file's absolute path, resolved (links followed), as
``ingest``, ``check FILE`` and ``check - --path FILE`` have always stored it.
A path a client sends a server is placed the same way (``kb.source_names``).

An index written before a server resolved the paths it was sent holds the
path as the client spelled it, relative to a working directory of that day
(``days/2026-09-21.md``). Such a source is the same file as an absolute path
that ends with it, so an accept or ingest of the file from anywhere finds its
records unchanged, neither replaced nor refused as another file's.
"""

from __future__ import annotations

import os
from pathlib import PurePath

from kbsearch.records import Record


def same_file(stored: str | None, source: str | None) -> bool:
    """Whether ``stored`` (a record's stored file) and ``source`` name the same file:
    equal, or one is relative (an old index's spelling) and the other, absolute, ends with it."""
    if stored == source:
        return True
    if stored is None or source is None:
        return False
    first, second = PurePath(stored), PurePath(source)
    if first.is_absolute() == second.is_absolute():
        return False
    relative, absolute = (second, first) if first.is_absolute() else (first, second)
    return ends_with(absolute, relative)


def ends_with(absolute: PurePath, relative: PurePath) -> bool:
    """Whether ``absolute`` ends with ``relative``'s parts (no ``..`` among them once normalised)."""
    parts = PurePath(os.path.normpath(relative)).parts
    if not parts or ".." in parts or parts == (".",):
        return False
    return absolute.parts[-len(parts) :] == parts


def as_stored(record: Record, file: str | None, stored_file: str | None) -> tuple[Record, str | None]:
    """``record`` read from ``file``, spelled as the index spells its file (``stored_file``) when
    the two name the same file: the record's JSON names its source, so an old index's relative
    spelling compares equal only with it."""
    if stored_file == file or not same_file(stored_file, file):
        return record, file
    if record.source == file:
        record = record.model_copy(update={"source": stored_file})
    return record, stored_file
