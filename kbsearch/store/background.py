"""Starting work in the background: ``python -m MODULE ARGS`` in a process of its own.

The writer starts a compaction (``kbsearch.store.compaction INDEX``) by name,
and never imports that module (it opens a ``Store``, whose facade imports the
writer); an ingest starts the token fill (``kbsearch.kb.token_fill``). Both
are this interpreter, a module of kbsearch and an argument list, never a
shell or text from a record.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def start(root: Path) -> None:
    """Start a compaction of the index at ``root`` in its own process and session."""
    start_module("kbsearch.store.compaction", str(root))


def start_module(module: str, *args: str, env: dict[str, str] | None = None) -> None:
    """Run ``python -m module args`` in its own session, not waited for."""
    subprocess.Popen(
        [sys.executable, "-m", module, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,  # outlives the command that started it, and its Ctrl-C
    )
