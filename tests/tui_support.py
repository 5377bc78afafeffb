"""Shared setup for the TUI tests: a fixed index built with the fake encoder,
and waiting helpers (workers finish on their own time, more so on a loaded machine)."""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import ParamSpec

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from kbsearch.cli import main
from kbsearch.store import DB_NAME
from kbsearch.tui.app import KbApp
from kbsearch.tui.check_screen import CheckScreen
from kbsearch.tui.search_screen import SearchScreen

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "tui"
CORPUS = FIXTURES / "corpus"
BRIEFING = FIXTURES / "briefing-2026-09-18-tom.md"
SIZE = (120, 36)
FIXED_INGEST = "2026-09-18T21:00:00+00:00"

P = ParamSpec("P")


def drive(test: Callable[P, Awaitable[None]]) -> Callable[P, None]:
    """Run an async test on its own event loop (no pytest async plugin needed)."""

    @functools.wraps(test)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        asyncio.run(test(*args, **kwargs))  # type: ignore[arg-type]

    return run


def build_index(folder: Path) -> None:
    """Ingest the fixture corpus and pin the ingest time, so that status bars are the same every run."""
    assert main(["ingest", str(CORPUS), "--index", str(folder)]) == 0
    db = sqlite3.connect(folder / DB_NAME)
    with db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'last_ingest'", (FIXED_INGEST,))
    db.close()


async def wait_for(pilot: Pilot[object], ready: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


def no_cursor_blink(app: App[object]) -> None:
    for widget in app.screen.query(Input):
        widget.cursor_blink = False
    for area in app.screen.query(TextArea):
        area.cursor_blink = False


def search_screen(app: KbApp) -> SearchScreen:
    assert isinstance(app.screen, SearchScreen)
    return app.screen


async def search_for(pilot, query: str) -> None:  # type: ignore[no-untyped-def]
    """Type ``query`` into the search box and wait until its results are shown."""
    screen = search_screen(pilot.app)
    screen.query_one("#query", Input).focus()
    await pilot.press(*query)
    await wait_for(
        pilot, lambda: screen.last_shown is not None and screen.last_shown[0] == query, f"results for {query!r}"
    )


async def check_on_screen(pilot, source: str) -> CheckScreen:  # type: ignore[no-untyped-def]
    """Open the check screen (f3), check the file ``source`` and wait for its result."""
    await pilot.press("f3")
    screen = pilot.app.screen
    assert isinstance(screen, CheckScreen)
    screen.start(source, None)
    await wait_for(pilot, lambda: screen.result is not None, "the check")
    return screen
