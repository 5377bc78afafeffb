"""Reading a database ahead must not cost its connections their locks.

POSIX drops every lock a process holds on a file when it closes any
descriptor of that file. When the read-ahead closed its descriptor, the
server's SQLite connections lost theirs without knowing; the next CLI command
that closed a connection on the same index then found the database unused,
checkpointed it and deleted the WAL under the server: the server answered
"disk I/O error", and what it wrote after that went to a deleted file.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import kbsearch.store.page_cache as page_cache
from kbsearch.store.database import DB_NAME

# A read that opens the WAL, as any command's first query does ('SELECT 1' reads no page).
OPEN_AND_CLOSE = (
    "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
    "db.execute('SELECT count(*) FROM meta').fetchone(); db.close()"
)
READ_VALUE = "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT v FROM meta').fetchone()[0])"


def another_process(script: str, path: Path) -> str:
    return subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True).stdout


NO_ADVICE = "this OS takes no read-ahead advice, so nothing is read ahead"


@pytest.mark.skipif(not hasattr(os, "posix_fadvise"), reason=NO_ADVICE)
def test_a_command_closing_its_connection_leaves_the_wal_of_a_server_that_read_ahead(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    server = sqlite3.connect(path, isolation_level=None)
    server.execute("PRAGMA journal_mode = WAL")
    server.execute("CREATE TABLE meta(v TEXT)")
    server.execute("INSERT INTO meta VALUES ('before')")
    thread = page_cache.read_ahead(path)
    assert thread is not None, page_cache.read_ahead_plan(path)
    thread.join(10)

    another_process(OPEN_AND_CLOSE, path)  # any `kbsearch list` while the server runs

    assert (tmp_path / f"{DB_NAME}-wal").exists()
    server.execute("UPDATE meta SET v = 'after'")
    assert another_process(READ_VALUE, path).strip() == "after"
    assert sqlite3.connect(path).execute("SELECT v FROM meta").fetchone() == ("after",)
    server.close()
