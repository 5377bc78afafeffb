"""A process that stays asks the OS to read its index database ahead.

At a million records a search's reads are scattered over a file of
gigabytes, and each page the OS does not hold is a disk read. ``kbsearch
serve`` and the TUI ask the kernel, at start, to read the file into its page
cache, in steps it takes whole, when the file fits in half the memory
available. The kernel's side is stubbed here: what is checked is the advice
given.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

import kbsearch.store.page_cache as page_cache
from kbsearch.store.database import DB_NAME


@pytest.fixture
def advice(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    given: list[tuple[int, int]] = []

    def record(fd: int, offset: int, length: int, what: int) -> None:
        assert what == os.POSIX_FADV_WILLNEED
        given.append((offset, length))

    monkeypatch.setattr(page_cache.os, "posix_fadvise", record)
    return given


def database_of(folder: Path, size: int) -> Path:
    folder.mkdir()
    path = folder / DB_NAME
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


def test_the_whole_file_is_advised_in_steps_the_kernel_takes_whole(
    tmp_path: Path, advice: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One advice for a whole 6.2 GB file read 8 MB of it: the kernel keeps a
    few MB of each, so the file is advised a step at a time."""
    monkeypatch.setattr(page_cache, "available_memory", lambda: 1 << 34)
    path = database_of(tmp_path / "idx", 3 * page_cache.ADVICE_BYTES + 1234)
    thread = page_cache.read_ahead(path)
    assert thread is not None
    thread.join(10)
    assert all(length <= page_cache.ADVICE_BYTES for _, length in advice)
    covered = 0
    for offset, length in sorted(advice):
        assert offset == covered  # no gap
        covered = offset + length
    assert covered >= path.stat().st_size


def test_a_database_over_half_the_available_memory_is_not_read_ahead(
    tmp_path: Path, advice: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    path = database_of(tmp_path / "idx", 10 << 20)
    monkeypatch.setattr(page_cache, "available_memory", lambda: 16 << 20)
    with caplog.at_level("INFO", logger="kbsearch.store"):
        assert page_cache.read_ahead(path) is None
    assert not advice
    assert "over half the memory available" in caplog.text
    monkeypatch.setattr(page_cache, "available_memory", lambda: 24 << 20)
    assert page_cache.read_ahead_plan(path) is None  # 10 MB of 24: read


def test_unknown_available_memory_reads_nothing_ahead(
    tmp_path: Path, advice: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = database_of(tmp_path / "idx", 1 << 20)
    monkeypatch.setattr(page_cache, "available_memory", lambda: None)
    assert page_cache.read_ahead(path) is None
    assert not advice


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> Path:
    from serve_support import build_index

    return build_index(tmp_path)


def read_ahead_asked(module: object, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The folders ``module`` asks to read ahead from now on (none is read)."""
    asked: list[Path] = []
    monkeypatch.setattr(module, "read_ahead", lambda root: asked.append(Path(root).resolve()))
    return asked


def test_the_server_reads_its_index_ahead_at_start(index: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from serve_support import service_for

    import kbsearch.serve.service as service_module

    asked = read_ahead_asked(service_module, monkeypatch)
    service_for(index).close()
    assert asked == [index.resolve()]


def test_the_tui_reads_its_index_ahead_when_it_opens_it(index: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kbsearch.tui.app as tui_app
    from kbsearch.kb import KnowledgeBase

    asked = read_ahead_asked(tui_app, monkeypatch)
    with KnowledgeBase.open(index) as kb:
        tui_app._open_cache(kb)
    assert asked == [index.resolve()]


def test_a_file_still_being_read_ahead_is_not_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The TUI asks on every reload: a second pass would compete with the first."""
    monkeypatch.setattr(page_cache, "available_memory", lambda: 1 << 34)
    path = database_of(tmp_path / "idx", 2 * page_cache.ADVICE_BYTES)
    release, calls = threading.Event(), []

    def slow_advice(fd: int, offset: int, length: int, what: int) -> None:
        calls.append(offset)
        release.wait(10)

    monkeypatch.setattr(page_cache.os, "posix_fadvise", slow_advice)
    first = page_cache.read_ahead(path)
    assert first is not None and page_cache.read_ahead(path) is first
    release.set()
    first.join(10)
    assert calls == [0, page_cache.ADVICE_BYTES]  # one pass
    again = page_cache.read_ahead(path)  # once it has ended, a later ask reads again
    assert again is not None and again is not first
    again.join(10)
