"""The file a path sent to a server names, spelled as the index spells files.

A client's working directory is not the server's: ``kbsearch serve`` (or the
host of an MCP agent) may start anywhere, and an agent sends the path it has,
often relative (``days/2026-09-21.md``). Resolved against the server's working
directory alone, the same file got a second spelling whenever the server
started elsewhere, and each accept of it replaced its records. A relative path
is placed, in this order, as:

1. the file it names from the server's working directory, when it is there
   (what ``kbsearch ingest`` run there reads);
2. the file it names from the folder holding the index (a project's
   ``index/`` beside its ``days/`` and ``inbox/``), when it is there;
3. the one file stored in the index whose absolute path ends with it (the file
   accepted or ingested before, wherever that ran);
4. else the path resolved against the server's working directory, as before.

An absolute path is the file it names (resolved when read). The stored
spelling is always absolute (``ingest.sources``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from kbsearch.store import Store

if TYPE_CHECKING:
    from kbsearch.dedupe.check_input import CheckInput
    from kbsearch.kb.facade import KnowledgeBase


def client_path(name: str, root: Path, stored_files: Callable[[], list[str]]) -> str:
    """``name`` placed as the module doc says; ``root``: the index folder, ``stored_files``:
    the files the index holds records of (asked only when the file is on no disk here)."""
    path = Path(name)
    if path.is_absolute() or not name.strip():
        return name
    for base in _bases(root):
        if (base / path).is_file():
            return str((base / path).resolve())
    from kbsearch.ingest.sources import ends_with  # here: the ingest package loads the parsers, which stats skips

    found = {f for f in stored_files() if PurePath(f).is_absolute() and ends_with(PurePath(f), path)}
    return found.pop() if len(found) == 1 else name


def _bases(root: Path) -> list[Path]:
    try:
        here = [Path.cwd()]
    except OSError:  # the working directory was removed
        here = []
    return [*here, root.resolve().parent]


def named_input(text: str, name: str, kb: KnowledgeBase) -> CheckInput:
    """A client's text read as file ``name``'s, the name placed as the module doc says."""
    from kbsearch.dedupe.check_input import read_named_text

    return read_named_text(text, client_path(name, kb.root, lambda: kb.store.files() if Store.exists(kb.root) else []))
