"""``serve.json``: where the server running for an index folder listens.

``kbsearch serve --http`` writes it (its url and pid, mode 0600), refuses to
start while it names another server that answers, and removes it on exit
when it is its own; the CLI reads it to use the warm server without a flag, and
``doctor`` names an entry whose process is gone. Kept apart and light: the
CLI's client path imports it, and so do the server and doctor.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from pathlib import Path

from pydantic import BaseModel, ValidationError

SERVER_FILE = "serve.json"
READ_TOKEN = "serve-read.token"
WRITE_TOKEN = "serve-write.token"


class ServerEntry(BaseModel):
    """What a running ``kbsearch serve --http`` leaves in its index folder."""

    url: str
    pid: int
    started: dt.datetime

    def alive(self) -> bool:
        """Whether the process that wrote it still runs (a pid reused since is rare, and a
        refused connection then sends the command to the local index all the same)."""
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True  # another user's process: alive
        return True

    def answers(self, timeout: float = 2.0) -> bool:
        """Whether a kbsearch server answers at the url (``GET /health``): the pid
        alive may be another program's, reused since, or the server hung."""
        import json
        import urllib.request

        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # the server runs on this machine
        try:
            with direct.open(f"{self.url.rstrip('/')}/health", timeout=timeout) as answer:
                body = json.loads(answer.read(65536))
        except (OSError, ValueError):
            return False
        return isinstance(body, dict) and body.get("status") == "ok" and "records" in body


def write_entry(root: Path, url: str) -> None:
    """Say where the server for ``root`` listens: atomically, mode 0600."""
    entry = ServerEntry(url=url, pid=os.getpid(), started=dt.datetime.now(dt.UTC))
    try:
        handle, temp = tempfile.mkstemp(prefix=".serve.", dir=root)
    except OSError as err:  # a read-only folder (its tokens already there): the server cannot say where it is
        from kbsearch.errors import KbError

        raise KbError(
            f"cannot write the server entry {SERVER_FILE}: {err.strerror}; the server did not start",
            path=str(root),
            hint="the index folder must be writable by the user who runs 'kbsearch serve --http' "
            "('kbsearch serve' over stdio reads a read-only index), or copy the index and serve the copy",
        ) from err
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(entry.model_dump_json())
        os.chmod(temp, 0o600)
        os.replace(temp, root / SERVER_FILE)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def remove_entry(root: Path) -> None:
    """Remove ``serve.json`` if it is this process's (a newer server may have replaced it)."""
    entry = read_entry(root)
    if entry is not None and entry.pid == os.getpid():
        (root / SERVER_FILE).unlink(missing_ok=True)


def read_entry(root: Path) -> ServerEntry | None:
    try:
        return ServerEntry.model_validate_json((root / SERVER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, ValidationError):
        return None
