"""SVG snapshots of the three screens: fixed index (fake encoder), fixed size, no cursor blink.

Regenerate after a deliberate UI change with
``pytest tests/test_tui_snapshots.py --snapshot-update`` and review the SVGs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static
from tui_support import BRIEFING, SIZE, build_index, no_cursor_blink, wait_for

from kbsearch.tui import make_app
from kbsearch.tui.audit_screen import AuditScreen
from kbsearch.tui.check_screen import CheckScreen
from kbsearch.tui.record_detail import RecordDetail
from kbsearch.tui.search_screen import SearchScreen


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    # Relative paths everywhere: the screens show them, and tmp_path differs per run.
    monkeypatch.chdir(tmp_path)
    build_index(tmp_path / "idx")
    shutil.copy(BRIEFING, tmp_path / BRIEFING.name)
    return "idx"


async def _settle(pilot: Pilot[object]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause(0.3)
    no_cursor_blink(pilot.app)
    await pilot.pause()


def test_search_screen(snap_compare, index: str) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[object]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, SearchScreen)
        screen.query_one("#query", Input).value = "RingKV 多轮 KV cache"
        await wait_for(pilot, lambda: screen.last_shown is not None, "the results")
        neighbours = screen.query_one(RecordDetail).query_one("#record-neighbours-head", Static)
        await wait_for(pilot, lambda: "Nearest" in str(neighbours.render()), "the neighbours")
        await _settle(pilot)

    assert snap_compare(make_app(index, show_timing=False), terminal_size=SIZE, run_before=run_before)


def test_check_screen(snap_compare, index: str) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[object]) -> None:
        await pilot.press("f3")
        screen = pilot.app.screen
        assert isinstance(screen, CheckScreen)
        screen.query_one("#path", Input).value = BRIEFING.name
        screen.query_one("#path", Input).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.result is not None, "the check")
        await _settle(pilot)

    assert snap_compare(make_app(index, show_timing=False), terminal_size=SIZE, run_before=run_before)


def test_audit_screen(snap_compare, index: str) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[object]) -> None:
        await pilot.press("f4")
        screen = pilot.app.screen
        assert isinstance(screen, AuditScreen)
        await wait_for(pilot, lambda: screen.result is not None, "the audit")
        await pilot.press("enter")  # expand the largest cluster
        await _settle(pilot)

    assert snap_compare(make_app(index, show_timing=False), terminal_size=SIZE, run_before=run_before)
