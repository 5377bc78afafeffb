"""Fixtures the server's tests share, loaded by conftest as a plugin.

``service`` serves whatever ``index`` the requesting module defines (most build
theirs with ``serve_support.build_index``); a module needing other options (a
longer lock wait, more readers) defines its own ``service``, which takes precedence."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import Running, build_index, running_server, service_for

from kbsearch.serve.service import Service


@pytest.fixture
def service(index: Path) -> Iterator[Service]:
    """An in-process service over the module's index, a writer waiting 0.2 s for the lock."""
    made: Service = service_for(index, lock_timeout=0.2)
    yield made
    made.close()


@pytest.fixture
def served(fake_models: Path, tmp_path: Path) -> Iterator[tuple[Running, Path]]:
    """A ``kbsearch serve`` process over a fresh index, and that index's folder."""
    index = build_index(tmp_path)
    with running_server(index, dict(os.environ)) as server:
        yield server, index
