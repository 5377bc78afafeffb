"""Getting around the TUI with the keyboard (issue 13, item 13): from the query
into the results, records opened from audit rows and nearest lists, a failed
check that leaves no stale result, 80×24, and one Quit in the palette."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, Static
from tui_support import BRIEFING, SIZE, build_index, check_on_screen, drive, search_for, search_screen, wait_for

from kbsearch.tui import make_app
from kbsearch.tui.audit_screen import AuditScreen
from kbsearch.tui.check_screen import CheckScreen
from kbsearch.tui.cluster_tree import ClusterTree
from kbsearch.tui.record_detail import RecordDetail
from kbsearch.tui.record_screen import RecordScreen
from kbsearch.tui.results_table import ResultsTable
from kbsearch.tui.search_screen import SearchScreen
from kbsearch.tui.verdict_table import VerdictTable


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    build_index(tmp_path / "idx")
    return "idx"


async def opened(pilot, record_id: str) -> RecordScreen:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, RecordScreen), "the record screen")
    screen = pilot.app.screen
    assert isinstance(screen, RecordScreen)
    await wait_for(pilot, lambda: screen.record is not None, f"record {record_id}")
    assert screen.record is not None and screen.record.id == record_id
    assert record_id in str(screen.query_one("#record-head", Static).render())
    return screen


@pytest.mark.parametrize("key", ["down", "enter"])
@drive
async def test_down_or_enter_in_the_query_moves_into_the_results(index: str, key: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        screen = search_screen(app)
        assert app.focused is screen.query_one("#query", Input)
        await search_for(pilot, "KV cache")
        await pilot.press(key)
        table = screen.query_one(ResultsTable)
        assert app.focused is table
        await pilot.press("down")  # and the arrow keys now move through the results
        assert table.cursor_row == 1


@drive
async def test_enter_right_after_typing_lands_in_the_fresh_results(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        screen = search_screen(app)
        await pilot.press(*"RingKV", "enter")  # before the typing pause has passed
        table = screen.query_one(ResultsTable)
        await wait_for(pilot, lambda: app.focused is table, "focus in the results")
        assert screen.last_shown is not None and screen.last_shown[0] == "RingKV"


@drive
async def test_an_audit_row_opens_its_record(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        await wait_for(pilot, lambda: screen.result is not None, "the audit")
        assert screen.result is not None
        first = screen.result.clusters[0]
        tree = screen.query_one(ClusterTree)
        await pilot.press("enter")  # expands the cluster
        assert tree.root.children[0].is_expanded
        await pilot.press("down", "down")  # its second member: the first repeat
        await pilot.press("enter")
        await opened(pilot, first.repeats[0].id)
        await pilot.press("escape")
        assert app.screen is screen


@drive
async def test_a_nearest_record_opens_and_its_own_nearest_open_in_turn(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "RingKV ring buffer")
        detail = search_screen(app).query_one(RecordDetail)
        options = detail.query_one("#record-neighbours", OptionList)
        await wait_for(pilot, lambda: options.option_count > 0, "the nearest records")
        target = options.get_option_at_index(0).id
        assert target is not None
        options.focus()
        options.highlighted = 0
        await pilot.press("enter")
        record_screen = await opened(pilot, target)
        inner = record_screen.query_one("#record-neighbours", OptionList)
        await wait_for(pilot, lambda: inner.option_count > 0, "the opened record's nearest records")
        second = inner.get_option_at_index(0).id
        assert second is not None
        inner.focus()
        inner.highlighted = 0
        await pilot.press("enter")
        await opened(pilot, second)
        await pilot.press("escape", "escape")
        assert isinstance(app.screen, SearchScreen)


@drive
async def test_a_failed_check_clears_the_last_result_and_says_why_on_screen(index: str, tmp_path: Path) -> None:
    async with make_app(index).run_test(size=SIZE) as pilot:
        screen = await check_on_screen(pilot, str(BRIEFING))
        assert screen.query_one(VerdictTable).items
        screen.start("no/such/briefing.md", None)
        summary = screen.query_one("#check-summary", Static)
        await wait_for(pilot, lambda: "failed" in str(summary.render()), "the failure on screen")
        assert "no such file" in str(summary.render())
        assert screen.result is None and not screen.query_one(VerdictTable).items
        assert "Accept" not in str(screen.query_one("#item-text", Static).render())


@drive
async def test_at_80_by_24_the_results_keep_the_title_column(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=(80, 24)) as pilot:
        await search_for(pilot, "KV cache")
        table = search_screen(app).query_one(ResultsTable)
        # every shown column fits: the title is not pushed into a sideways scroll
        assert table.virtual_size.width <= table.size.width
        assert "title" in table.shown_columns and "score" in table.shown_columns
        title = table.columns["title"]  # type: ignore[index]
        assert title.width >= 16
        first = table.items[0]
        assert first.title[:8] in str(table.get_row_at(0)[-1])
        await pilot.press("f3")
        check = app.screen
        assert isinstance(check, CheckScreen)
        verdicts = check.query_one(VerdictTable)
        assert "title" in verdicts.shown_columns and "verdict" in verdicts.shown_columns


@drive
async def test_the_command_palette_lists_quit_once(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        for mode in ("search", "check", "audit"):
            await app.switch_mode(mode)
            await pilot.pause()
            titles = [command.title for command in app.get_system_commands(app.screen)]
            assert titles.count("Quit") == 1, titles
