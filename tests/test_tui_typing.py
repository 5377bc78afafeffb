"""Typing on the check screen never writes to the index.

A user checks one file and types the next one's path at once. When a check
moved the focus off the path box, the letters of that path reached the
screen's keys: the `a` of "scratch" opened the accept dialog and the `y` of
"jay" confirmed it, storing the briefing just checked. Accepting now takes
ctrl+a and then ctrl+y (or enter on the Accept button); the dialog starts on
Cancel, and a check never takes the focus away from where the user types.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button, DataTable, Input
from tui_support import SIZE, build_index, drive, wait_for

from kbsearch.dedupe.results import Verdict
from kbsearch.kb import KnowledgeBase
from kbsearch.tui import make_app
from kbsearch.tui.app import KbApp
from kbsearch.tui.check_screen import ACCEPT, CheckScreen
from kbsearch.tui.confirm_screen import ConfirmScreen
from kbsearch.tui.help_screen import HelpScreen
from kbsearch.tui.verdict_table import VerdictTable

NEW_ITEM = (
    "inference · E1 预消化简报(2026-09-21)\n"
    "增量 1：Cached-input pricing at one tenth of list price（⭐⭐）\n"
    "要点：\n- three providers bill cached tokens at 10%\n"
    "本报告由 Tom 实例自动生成\n"
)
NEXT_PATH = "scratch/2026-09-22-jay-inference-e1prep.md"
"""Holds an `a` (the old accept key) and then a `y` (the old confirm key)."""


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    build_index(tmp_path / "idx")
    (tmp_path / "today.md").write_text(NEW_ITEM, encoding="utf-8")
    return "idx"


def record_count(index: str) -> int:
    with KnowledgeBase.open(index) as kb:
        return kb.stats().records


async def checked_by_enter(pilot, app: KbApp) -> CheckScreen:  # type: ignore[no-untyped-def]
    """F3, type today.md into the path box, enter: the way a user checks a file."""
    await pilot.press("f3")
    screen = app.screen
    assert isinstance(screen, CheckScreen)
    await pilot.press(*"today.md", "enter")
    await wait_for(pilot, lambda: screen.result is not None, "the check")
    assert screen.result is not None and [i.verdict for i in screen.result.items] == [Verdict.NEW]
    return screen


@drive
async def test_typing_the_next_path_after_a_check_accepts_nothing(index: str) -> None:
    before = record_count(index)
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        screen = await checked_by_enter(pilot, app)
        await pilot.press(*NEXT_PATH)
        await pilot.pause(0.3)
        await app.workers.wait_for_complete()
        assert record_count(index) == before, "typing a path accepted the briefing just checked"
        assert app.screen is screen, "a letter of the path opened a dialog"
        path = screen.query_one("#path", Input)
        assert app.focused is path  # the result did not take the focus away
        assert path.value == NEXT_PATH  # the path just checked was selected: typing replaced it


@drive
async def test_typing_in_the_items_goes_to_the_path_box(index: str) -> None:
    """From the table (down from the path box), a printable key starts a new path there."""
    before = record_count(index)
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        screen = await checked_by_enter(pilot, app)
        await pilot.press("down")
        assert app.focused is screen.query_one(VerdictTable)
        await pilot.press(*NEXT_PATH)
        await pilot.pause(0.3)
        assert app.screen is screen
        path = screen.query_one("#path", Input)
        assert app.focused is path and path.value == NEXT_PATH
        await pilot.press("down", "x")  # a path being typed goes on
        assert app.focused is path and path.value == NEXT_PATH + "x"
        await pilot.press("down", "question_mark")  # a bound key keeps its binding
        assert isinstance(app.screen, HelpScreen)
        table = app.screen.query_one("#help-keys", DataTable)
        rows = [" ".join(str(c) for c in table.get_row_at(r)) for r in range(table.row_count)]
        assert any(ACCEPT in row and "^a" in row for row in rows), rows
        assert any("ctrl+y" in row and "accept dialog" in row for row in rows)
    assert record_count(index) == before


@drive
async def test_accept_needs_ctrl_a_then_ctrl_y_and_letters_never_confirm(index: str) -> None:
    before = record_count(index)
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        screen = await checked_by_enter(pilot, app)
        await pilot.press("a")
        assert app.screen is screen  # a letter is typed, never a command
        await pilot.press("ctrl+a")
        assert isinstance(app.screen, ConfirmScreen)
        assert "today.md" in app.screen.question.plain  # what it stores, whatever the path box holds
        assert app.focused is app.screen.query_one("#no", Button)
        await pilot.press("y", "a", "enter")  # letters do nothing; enter presses the focused Cancel
        assert app.screen is screen and screen.result is not None and not screen.result.accepted
        await pilot.press("ctrl+a")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("ctrl+y")
        await wait_for(pilot, lambda: bool(screen.result and screen.result.accepted), "the accept")
    assert record_count(index) == before + 1


@drive
async def test_a_failed_check_selects_its_path_so_typing_replaces_it(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        screen = app.screen
        assert isinstance(screen, CheckScreen)
        summary = screen.query_one("#check-summary")
        await pilot.press(*"missing.md", "enter")
        await wait_for(pilot, lambda: "The check failed" in str(summary.render()), "the failed check")
        await pilot.press(*"today.md")
        path = screen.query_one("#path", Input)
        assert app.focused is path and path.value == "today.md"  # not missing.mdtoday.md
