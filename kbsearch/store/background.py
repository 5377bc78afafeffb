"""Starting a compaction in the background: ``python -m kbsearch.store.compaction INDEX``.

The writer starts it by name, in a process of its own, and never imports
``compaction`` (which opens a ``Store``, whose facade imports the writer).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def start(root: Path) -> None:
    """Start a compaction of the index at ``root`` in its own process and session."""
    subprocess.Popen(
        [sys.executable, "-m", "kbsearch.store.compaction", str(root)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # outlives the command that started it, and its Ctrl-C
    )
