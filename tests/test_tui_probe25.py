"""What probe 25 found driving the TUI: the panes fit the terminal at every width from 80
columns up (the detail pane and the check screen's item pane ran 12 columns off the right edge
at 80, 7 at 92, 4 at 100), why ctrl+a refused stays on screen, the filter menus say which is
which, and an empty index says how to fill it. Driven with Pilot over the fake encoder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Input, Select, Static
from textual.widgets._select import SelectCurrent
from tui_support import BRIEFING, SIZE, build_index, check_on_screen, drive, search_for, search_screen, wait_for

from kbsearch.cli import main
from kbsearch.tui import make_app
from kbsearch.tui.app import KbApp
from kbsearch.tui.item_detail import ItemDetail
from kbsearch.tui.record_detail import RecordDetail
from kbsearch.tui.results_table import ResultsTable
from kbsearch.tui.verdict_table import VerdictTable

WIDTHS = (80, 92, 100, 120)


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    build_index(tmp_path / "idx")
    shutil.copy(BRIEFING, tmp_path / BRIEFING.name)
    return "idx"


def past_the_edge(app: KbApp) -> list[str]:
    """The widgets on screen whose region passes the screen's right edge (the footer's keys
    are left out: the footer shows as many as fit, F1 lists them all)."""
    width = app.screen.size.width
    footer = app.screen.query_one(Footer)
    shown = [w for w in app.screen.query(Widget) if w.display and w.region.width and footer not in w.ancestors]
    return [f"{w!r} {w.region}" for w in shown if w.region.right > width]


@pytest.mark.parametrize("width", WIDTHS)
@drive
async def test_the_panes_fit_the_screen(index: str, width: int) -> None:
    app = make_app(index, show_timing=False)
    async with app.run_test(size=(width, 30)) as pilot:
        await search_for(pilot, "RingKV")
        await pilot.pause(0.1)
        assert not past_the_edge(app), past_the_edge(app)
        assert app.screen.query_one(RecordDetail).region.width >= 46  # a briefing's id on one line
        await check_on_screen(pilot, BRIEFING.name)
        await pilot.pause(0.1)
        assert not past_the_edge(app), past_the_edge(app)
        assert app.screen.query_one(ItemDetail).region.width >= 46


@drive
async def test_why_accept_was_refused_stays_in_the_summary_line(index: str) -> None:
    """It was only a notification, gone after a few seconds; the summary kept the bare counts."""
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        screen = await check_on_screen(pilot, BRIEFING.name)
        screen.query_one(VerdictTable).focus()
        await pilot.press("ctrl+a")
        await pilot.pause()
        summary = str(screen.query_one("#check-summary", Static).render())
        assert "Nothing accepted: 1 item is a DUPLICATE" in summary, summary


NAMES = {80: ["kind", "instance", "topic", "category"], 60: ["kind", "insta", "topi", "categ"]}


@pytest.mark.parametrize(("width", "shown"), NAMES.items())
@drive
async def test_the_filter_menus_say_which_is_which(index: str, width: int, shown: list[str]) -> None:
    """They read any▼any▼any▼any▼ at 80 columns, a▼a▼a▼a▼ at 60."""
    app = make_app(index)
    async with app.run_test(size=(width, 24)) as pilot:
        await wait_for(pilot, lambda: app.stats is not None, "the stats")
        await pilot.pause(0.1)
        screen = search_screen(app)
        # each menu's label as the screen shows it, cut to its width
        labels = [s.query_one(SelectCurrent).query_one("#label").render_line(0).text for s in screen.query(Select)]
        assert [label.strip() for label in labels] == shown, labels
        dates = [screen.query_one(f"#{name}", Input) for name in ("since", "until")]
        assert all(date.region.width >= 11 and date.region.right <= width for date in dates)  # a whole date


@drive
async def test_the_section_filter_keeps_the_records_of_that_section(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "KV cache")
        screen = search_screen(app)
        everything = [hit.id for hit in screen.query_one(ResultsTable).items]
        screen.query_one("#section", Input).value = "§1.3"
        await wait_for(pilot, lambda: [h.id for h in screen.query_one(ResultsTable).items] != everything, "the filter")
        sections = [hit.section for hit in screen.query_one(ResultsTable).items]
        assert sections and all(section is not None and "§1.3" in section for section in sections)


@drive
async def test_help_shows_the_command_palette_without_scrolling(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        table = app.screen.query_one("#help-keys", DataTable)
        keys = [str(table.get_row_at(row)[1]) for row in range(table.row_count)]
        assert "ctrl+p" in keys
        above = sum(table.rows[table.ordered_rows[row].key].height for row in range(keys.index("ctrl+p") + 1))
        assert above + 1 <= table.size.height  # below the header, on the first screen


@drive
async def test_an_empty_index_says_how_to_fill_it_and_no_index_is_said_once(
    fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    rows = tmp_path / "one.jsonl"
    rows.write_text('{"id": "a/1#1", "title": "one", "text": "one record"}\n', encoding="utf-8")
    assert main(["ingest", str(rows), "--index", "empty"]) == 0
    assert main(["remove", "a/1#1", "--index", "empty"]) == 0  # an index that holds no record
    app = make_app("empty")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.stats is not None or app.problem is not None, "the stats")
        assert app.problem is None, app.problem
        await search_for(pilot, "KV cache")
        detail = search_screen(app).query_one(RecordDetail)
        text = str(detail.query_one("#record-head", Static).render())
        assert "holds no records" in text and "kbsearch ingest" in text and "filters" not in text, text
    app = make_app("missing")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.problem is not None, "the open to fail")
        screen = search_screen(app)
        screen.query_one("#query", Input).value = "KV cache"
        await pilot.pause(0.5)
        await app.workers.wait_for_complete()
        await pilot.pause(0.1)
        assert [n.message for n in app._notifications if "no index" in n.message] == [app.problem]
