"""What a first-day review in the TUI ran into: a screen that waits forever on an
index that is not there, keys the 80-column footer hid, and text cut off."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Markdown, Static
from textual.widgets._footer import FooterKey
from tui_support import SIZE, build_index, drive, search_for, search_screen, wait_for

from kbsearch.cli import main
from kbsearch.dedupe.audit_results import ClusterMember
from kbsearch.dedupe.results import Flag
from kbsearch.kb import KnowledgeBase
from kbsearch.records import Kind, Record
from kbsearch.render.records import record_text
from kbsearch.tui import make_app
from kbsearch.tui.audit_screen import AuditScreen
from kbsearch.tui.cluster_tree import _flag_row, _member
from kbsearch.tui.hits import facts
from kbsearch.tui.record_detail import NeighbourList, RecordDetail, _parser
from kbsearch.tui.record_screen import RecordScreen
from kbsearch.tui.results_table import ResultsTable
from kbsearch.tui.status_bar import StatusBar

NEW_BRIEFING = (
    "inference · E1 预消化简报(2026-09-21)\n"
    "增量 1：Cached-input pricing at one tenth of list price（⭐⭐）\n"
    "要点：\n- three providers bill cached tokens at 10%\n"
    "本报告由 Tom 实例自动生成\n"
)


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


def test_each_line_of_a_records_text_keeps_its_own_line() -> None:
    """markdown-it's "breaks" option changes only its HTML; Textual reads the tokens."""
    tokens = _parser().parse("first point\nsecond point")
    assert [c.type for t in tokens for c in t.children or []] == ["text", "hardbreak", "text"]


@drive
async def test_the_detail_pane_lists_the_claims_as_show_does(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "RingKV ring buffer")
        table = search_screen(app).query_one(ResultsTable)
        table.move_cursor(row=[hit.id for hit in table.items].index("tom/2026-09-12#2"))
        detail = search_screen(app).query_one(RecordDetail)
        heading = detail.query_one("#record-neighbours-head", Static)
        await wait_for(pilot, lambda: detail.record_id == "tom/2026-09-12#2", "the increment's detail")
        await wait_for(pilot, lambda: "Nearest" in str(heading.render()), "the stored record and its neighbours")
        source = detail.query_one("#record-body", Markdown).source
        with KnowledgeBase.open(index) as kb:
            shown = record_text(kb.show("tom/2026-09-12#2"))
        assert "claims (要点):\n  - Ring buffers raise KV cache reuse in multi-turn chat to 83%" in source
        assert source in shown  # its text and bullets as `kbsearch show` prints them


@pytest.mark.parametrize(
    ("stored", "shown"), [("不入", "not for the living doc (不入)"), ("§1.3 KV Cache", "§1.3 KV Cache")]
)
def test_a_section_of_buru_is_said_in_words(stored: str, shown: str) -> None:
    record = Record(id="spark/2026-09-12#3", kind=Kind.increment, title="t", text="x", section=stored)
    assert dict(facts(record))["section"].plain == shown


@drive
async def test_a_search_after_another_process_ingests_refreshes_the_status_bar(index: str, tmp_path: Path) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.stats is not None, "the stats")
        before = app.stats.records if app.stats else 0
        (tmp_path / "more").mkdir()
        (tmp_path / "more" / "extra.md").write_text(NEW_BRIEFING, encoding="utf-8")
        assert main(["ingest", str(tmp_path / "more"), "--index", index]) == 0  # as another process would
        await search_for(pilot, "cached tokens")
        await wait_for(pilot, lambda: bool(app.stats and app.stats.records > before), "the status bar's new count")
        bar = str(search_screen(app).query_one(StatusBar).render())
        assert f"records {before + 1}" in bar


@drive
async def test_help_rows_wrap_at_80_columns(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        table = app.screen.query_one("#help-keys", DataTable)
        assert app.screen.query_one("#help-box").region.right <= 80
        assert table.region.right <= 80
        rows = {str(table.get_row_at(r)[2]): r for r in range(table.row_count)}
        long = next(r for text, r in rows.items() if "replacing the path just checked" in text)
        assert table.rows[table.ordered_rows[long].key].height > 1  # wrapped, not cut
        widths = sum(column.get_render_width(table) for column in table.columns.values())
        assert widths <= table.size.width


def test_an_audit_row_keeps_its_words_apart_and_a_flag_names_the_record_seen_first() -> None:
    doc = ClusterMember(id="doc/inference#§1.3", kind=Kind.doc_section, title="§1.3", instance=None, date=None)
    assert _member(doc.role, doc, "yellow").plain.startswith("in doc - -  doc/inference#§1.3")
    flag = Flag.seen_before(
        ClusterMember(id="tom/2026-09-12#2", kind=Kind.increment, title="t", instance="tom", date=dt.date(2026, 9, 12)),
        "jay/2026-09-13#1 (jay, 2026-09-13) is marked '首次锚入' but tom had it on 2026-09-12 " + "x" * 200,
    )
    assert _flag_row(flag).plain.startswith("! seen first: tom 2026-09-12 tom/2026-09-12#2")
