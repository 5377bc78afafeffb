"""``kbsearch serve --http`` on an index folder it cannot write (probe 24).

It needs the folder for its token files and its ``serve.json``. On a read-only folder the
start was an internal error (exit 3): the cleanup of the token files it had not made raised
EROFS and hid the token module's own error, and with the tokens already there the raw
``tempfile.mkstemp`` of ``serve.json`` raised it. Now either says in one line, exit 2, that the
folder must be writable. The tests run as root, so the file system's refusal is simulated.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from serve_support import build_index

import kbsearch.runtime.server_entry as server_entry
from kbsearch.cli import main
from kbsearch.serve.tokens import READ_TOKEN, Tokens


def read_only(*_: object, **__: object) -> Any:
    raise OSError(errno.EROFS, os.strerror(errno.EROFS))


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    return build_index(tmp_path)


def serve(index: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["serve", "--http", "127.0.0.1:0", "--index", str(index)])
    return code, capsys.readouterr().err


def test_no_token_files_and_a_read_only_folder(
    index: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open, real_unlink = os.open, Path.unlink

    def refusing_open(path: Any, *args: Any, **kwargs: Any) -> int:
        return read_only() if str(path).endswith(".token") else real_open(path, *args, **kwargs)

    def refusing_unlink(self: Path, missing_ok: bool = False) -> None:
        return read_only() if self.name.endswith(".token") else real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(os, "open", refusing_open)
    monkeypatch.setattr(Path, "unlink", refusing_unlink)
    code, err = serve(index, capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "cannot create the server's token file" in err and "must be writable" in err, err
    assert "Traceback" not in err and "internal error" not in err


def test_token_files_there_and_a_read_only_folder(
    index: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    Tokens.in_folder(index)  # an earlier start made them
    monkeypatch.setattr(server_entry.tempfile, "mkstemp", read_only)
    code, err = serve(index, capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "cannot write the server entry serve.json" in err and "must be writable" in err, err
    assert (index / READ_TOKEN).exists() and not (index / "serve.json").exists()
