"""Who may do what: a read token and a write token, kept in the index folder.

On first start the server writes ``serve-read.token`` and ``serve-write.token``
(mode 0600, created exclusively, so an existing file is never replaced); on
later starts it reads them. A token file that other users can read is
refused, as ssh refuses a readable private key. The write token also reads.
Tokens are compared in constant time, and both are always compared, so the
time taken says nothing about which one was close.
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
from enum import IntEnum
from pathlib import Path

from kbsearch.errors import KbError
from kbsearch.runtime.server_entry import READ_TOKEN, WRITE_TOKEN  # the client reads them too (a found server)

__all__ = ["READ_TOKEN", "WRITE_TOKEN", "Access", "Tokens"]


class Access(IntEnum):
    none = 0
    read = 1
    write = 2


class Tokens:
    def __init__(self, read: str, write: str) -> None:
        self._read = read.encode()
        self._write = write.encode()

    @classmethod
    def in_folder(cls, root: Path) -> tuple[Tokens, list[Path]]:
        """The folder's tokens, created on first use; also the paths of the two files."""
        paths = [root / READ_TOKEN, root / WRITE_TOKEN]
        return cls(*(_token_file(p) for p in paths)), paths

    def access(self, authorization: str | None) -> Access:
        """What an ``Authorization: Bearer TOKEN`` header grants."""
        scheme, _, given = (authorization or "").partition(" ")
        token = given.strip().encode() if scheme.lower() == "bearer" else b""
        is_write = hmac.compare_digest(token, self._write)
        is_read = hmac.compare_digest(token, self._read)
        if is_write and token:
            return Access.write
        if is_read and token:
            return Access.read
        return Access.none


def _token_file(path: Path) -> str:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_token(path)
    except OSError as err:
        raise KbError(
            f"cannot create the server's token file: {err.strerror}",
            path=str(path),
            hint="the index folder must be writable by the user who runs 'kbsearch serve --http'",
        ) from err
    token = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(token + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    return token


def _read_token(path: Path) -> str:
    info = path.stat()
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise KbError(
            "the token file is readable by other users", path=str(path), hint=f"run 'chmod 600 {path}', or delete it"
        )
    token = path.read_text(encoding="ascii", errors="replace").strip()
    if len(token) < 16:
        raise KbError("the token file holds no usable token", path=str(path), hint="delete it: the server writes anew")
    return token
