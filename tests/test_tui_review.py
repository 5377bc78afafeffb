"""What a first-day review in the TUI ran into: a screen that waits forever on an
index that is not there, keys the 80-column footer hid, and text cut off."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static
from textual.widgets._footer import FooterKey
from tui_support import SIZE, build_index, drive, search_for, search_screen, wait_for

from kbsearch.tui import make_app
from kbsearch.tui.audit_screen import AuditScreen
from kbsearch.tui.record_detail import NeighbourList, RecordDetail
from kbsearch.tui.record_screen import RecordScreen


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    build_index(tmp_path / "idx")
    return "idx"


@drive
async def test_the_audit_screen_says_why_it_failed_on_a_missing_index(
    fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app("missing")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.problem is not None, "the open to fail")
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        summary = screen.query_one("#audit-summary", Static)
        await wait_for(pilot, lambda: "The audit failed" in str(summary.render()), "the failure in the summary")
        assert "no index at missing" in str(summary.render())  # not "Auditing the whole index…" forever
    assert not (tmp_path / "missing").exists()


@drive
async def test_at_80_columns_the_footer_shows_help_quit_and_the_other_screens(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=(80, 24)) as pilot:
        for mode, key in (("search", "f2"), ("check", "f3"), ("audit", "f4")):
            await pilot.press(key)
            await pilot.pause(0.2)
            keys = list(app.screen.query(FooterKey))
            palette = next(k for k in keys if k.has_class("-command-palette"))
            whole = {k.key for k in keys if k.region.width and k.region.right <= palette.region.x}
            others = {"f2", "f3", "f4"} - {key}
            assert {"f1", "ctrl+q", *others} <= whole, (mode, sorted(whole))


@drive
async def test_the_accept_key_and_hint_say_it_is_all_or_nothing(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        hint = str(app.screen.query_one("#check-summary", Static).render())
        assert "NEW and UPDATE items" not in hint and "none when any is a DUPLICATE" in hint
        await pilot.press("f1")
        table = app.screen.query_one("#help-keys", DataTable)
        rows = [" ".join(str(c) for c in table.get_row_at(r)) for r in range(table.row_count)]
        accept = [row for row in rows if "^a" in row]
        assert accept and all("none if any is a DUPLICATE" in row for row in accept), accept


@drive
async def test_ctrl_d_from_the_query_then_enter_on_the_nearest_records_opens_one(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "RingKV ring buffer")
        screen = search_screen(app)
        detail = screen.query_one(RecordDetail)
        heading = detail.query_one("#record-neighbours-head", Static)
        await wait_for(pilot, lambda: "enter opens one" in str(heading.render()), "the nearest records")
        assert app.focused is screen.query_one("#query", Input)
        await pilot.press("ctrl+d")  # the query box's own ctrl+d deleted a character instead
        assert app.focused is detail
        await pilot.press("tab")
        assert app.focused is detail.query_one(NeighbourList)
        await pilot.press("enter")  # no arrow key first
        await wait_for(pilot, lambda: isinstance(app.screen, RecordScreen), "the nearest record's screen")
