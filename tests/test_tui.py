"""Behaviour of the TUI, driven with Pilot over a fixed index and the fake encoder."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.text import Text
from support.briefings import LAYOUT_0919, Briefing
from textual.widgets import Input, Markdown, OptionList, Static
from tui_support import BRIEFING, SIZE, build_index, check_on_screen, drive, search_for, search_screen, wait_for

from fake_encoder import FakeEncoder
from kbsearch.dedupe.results import Verdict
from kbsearch.kb import KnowledgeBase, SearchMode, SharedEncoder
from kbsearch.models import resolve_model
from kbsearch.records import Kind
from kbsearch.search import SearchResponse
from kbsearch.store import SearchFilter
from kbsearch.tui import make_app
from kbsearch.tui.app import KbApp
from kbsearch.tui.audit_screen import AuditScreen
from kbsearch.tui.check_screen import ACCEPT, CheckScreen
from kbsearch.tui.cluster_tree import ClusterTree
from kbsearch.tui.confirm_screen import ConfirmScreen
from kbsearch.tui.help_screen import HelpScreen
from kbsearch.tui.record_detail import RecordDetail
from kbsearch.tui.results_table import ResultsTable
from kbsearch.tui.search_screen import SearchScreen
from kbsearch.tui.verdict_table import VerdictTable

HOSTILE_ID = "tom/2026-09-17#4"


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    build_index(tmp_path / "idx")
    return "idx"


def shown_ids(app: KbApp) -> list[str]:
    return [hit.id for hit in search_screen(app).query_one(ResultsTable).items]


def neighbour_lines(detail: RecordDetail) -> list[str]:
    options = detail.query_one("#record-neighbours", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def facade_search(index: str, query: str, flt: SearchFilter | None = None) -> SearchResponse:
    with KnowledgeBase.open(index) as kb:
        return kb.search(query, 30, flt)


@drive
async def test_typing_a_query_fills_the_results_with_the_facades_hits(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "KV cache reuse")
        expected = [hit.id for hit in facade_search(index, "KV cache reuse").results]
        assert shown_ids(app) == expected and len(expected) == 12
        table = search_screen(app).query_one(ResultsTable)
        first = table.get_row_at(0)
        assert [str(c) for c in first[1:4]] == [
            table.items[0].kind.value,
            table.items[0].instance or "-",
            str(table.items[0].date or "-"),
        ]


@drive
async def test_typing_fast_embeds_only_the_last_query(index: str) -> None:
    seen: list[str] = []

    class Counting(KnowledgeBase):
        def search(self, query: str, k: int = 10, flt: SearchFilter | None = None, mode=SearchMode.hybrid):  # type: ignore[no-untyped-def]
            seen.append(query)
            return super().search(query, k, flt, mode)

    app = make_app(index, open_kb=lambda: Counting(Path(index), resolve_model(None)))
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "speculative decoding")
        typed = [q for q in seen if "speculative decoding".startswith(q)]
        assert typed[-1] == "speculative decoding"
        # one embedding per burst, not one per keystroke (slack for a slow machine's gaps)
        assert len(typed) < len("speculative decoding") // 2


def app_with_a_held_model(index: str) -> tuple[KbApp, threading.Event]:
    """An app whose model "loads" until the returned event is set, however long the machine
    takes to get there: a time limit ended the load early on a busy CI machine, and the first
    keystrokes were searched by meaning. Callers set the event in a finally."""
    loading = threading.Event()
    spec = resolve_model(None)

    def slow_load(_: object) -> FakeEncoder:
        loading.wait()
        return FakeEncoder()

    shared = SharedEncoder(spec, load=slow_load)  # type: ignore[arg-type]
    app = make_app(index, open_kb=lambda: KnowledgeBase(Path(index), spec, encoder=shared))  # type: ignore[arg-type]
    return app, loading


@drive
async def test_keystrokes_before_the_model_is_loaded_are_answered_by_the_words_then_by_meaning(index: str) -> None:
    """Issue 26: the first keystrokes waited seconds for the model. They are answered at once,
    by the words alone and marked so, and searched again by meaning once the model is loaded."""
    app, loading = app_with_a_held_model(index)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.stats is not None, "the stats")
            await search_for(pilot, "RingKV")
            screen = search_screen(app)
            summary = str(screen.query_one("#summary", Static).render())
            assert screen.words_only and "by the words only while the model loads" in summary
            assert shown_ids(app) and not app.warmed
            loading.set()
            await wait_for(pilot, lambda: app.warmed and not screen.words_only, "the search by meaning")
            assert "while the model loads" not in str(screen.query_one("#summary", Static).render())
            assert shown_ids(app) == [hit.id for hit in facade_search(index, "RingKV").results]
    finally:
        loading.set()


@drive
async def test_a_keystroke_after_the_first_results_does_not_wait_for_the_model(index: str) -> None:
    """The first results select a record, whose neighbours are searched on the gateway's one
    thread: by meaning, that search waited for the model, and every later keystroke behind it."""
    app, loading = app_with_a_held_model(index)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.stats is not None, "the stats")
            await search_for(pilot, "RingKV")
            assert shown_ids(app) and not app.warmed  # a record is selected: its neighbours are asked
            screen = search_screen(app)
            screen.query_one("#query", Input).value = ""
            await search_for(pilot, "KV cache")
            assert not app.warmed and screen.words_only
    finally:
        loading.set()


@drive
async def test_a_stale_search_never_reaches_the_table(index: str) -> None:
    started, release = threading.Event(), threading.Event()

    class HeldFirst(KnowledgeBase):
        def search(self, query: str, k: int = 10, flt: SearchFilter | None = None, mode=SearchMode.hybrid):  # type: ignore[no-untyped-def]
            if query == "RingKV":  # held until a newer query has been dispatched
                started.set()
                release.wait(30)
            return super().search(query, k, flt, mode)

    app = make_app(index, open_kb=lambda: HeldFirst(Path(index), resolve_model(None)))
    async with app.run_test(size=SIZE) as pilot:
        screen = search_screen(app)
        shown: list[str] = []
        original = screen._show

        def spy(found, summary):  # type: ignore[no-untyped-def]
            shown.append(summary.plain)
            original(found, summary)

        screen._show = spy  # type: ignore[method-assign]
        screen.query_one("#query", Input).value = "RingKV"
        await wait_for(pilot, started.is_set, "the first search to start")
        serial = screen._serial
        screen.query_one("#query", Input).value = "agent tool caching"
        await wait_for(pilot, lambda: screen._serial > serial, "the second query to be dispatched")
        release.set()
        await wait_for(pilot, lambda: screen.last_shown is not None, "the second query's results")
        await pilot.pause(0.5)
        assert shown and all("RingKV" not in line for line in shown)
        assert "agent tool caching" in shown[-1]


@drive
async def test_a_search_does_not_wait_for_a_running_check(index: str) -> None:
    release = threading.Event()

    class SlowCheck(KnowledgeBase):
        def check(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            release.wait(30)
            return super().check(*args, **kwargs)

    app = make_app(index, open_kb=lambda: SlowCheck(Path(index), resolve_model(None)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        check = app.screen
        assert isinstance(check, CheckScreen)
        check.start(str(BRIEFING), None)
        await pilot.press("f2")
        try:
            await search_for(pilot, "RingKV")  # times out if searches queue behind the check
            assert check.result is None
        finally:
            release.set()
        await wait_for(pilot, lambda: check.result is not None, "the check")


@drive
async def test_selecting_a_result_shows_its_detail_and_neighbours(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "RingKV ring buffer")
        screen = search_screen(app)
        table = screen.query_one(ResultsTable)
        table.focus()
        await pilot.press("down")
        second = table.items[1]
        detail = screen.query_one(RecordDetail)
        await wait_for(pilot, lambda: detail.record_id == second.id, "the detail of the second hit")
        head = str(detail.query_one("#record-head", Static).render())
        assert second.title in head and second.id in head
        if second.source:
            assert second.source in head
        heading = detail.query_one("#record-neighbours-head", Static)
        await wait_for(pilot, lambda: "looking" not in str(heading.render()), "the neighbours")
        assert "Nearest records, as kbsearch similar lists them" in str(heading.render())
        assert neighbour_lines(detail)  # which ones: tests/test_tui_similar.py


@drive
async def test_filters_narrow_the_results(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "KV cache")
        screen = search_screen(app)
        everything = shown_ids(app)
        screen.set_filter("instance", "jay")
        await wait_for(pilot, lambda: shown_ids(app) != everything, "the instance filter")
        expected = facade_search(index, "KV cache", SearchFilter(instance="jay")).results
        assert shown_ids(app) == [hit.id for hit in expected]
        assert {hit.instance for hit in screen.query_one(ResultsTable).items} == {"jay"}
        screen.action_clear_filters()
        await wait_for(pilot, lambda: shown_ids(app) == everything, "the filters to clear")
        screen.query_one("#since", Input).focus()
        await pilot.press(*"2026-09-14")
        # (a half-typed date shows no results, and says why, until it is whole)
        await wait_for(pilot, lambda: shown_ids(app) not in (everything, []), "the date filter")
        dates = [hit.date for hit in screen.query_one(ResultsTable).items]
        assert dates and all(d is not None and str(d) >= "2026-09-14" for d in dates)


@drive
async def test_palette_filter_commands_reach_the_filter_bar(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.stats is not None, "the stats")
        screen = search_screen(app)
        commands = {c.title: c for c in app.get_system_commands(screen)}
        assert {"Filter kind: paper_card", "Filter instance: spark", "Filter topic: agents"} <= set(commands)
        await search_for(pilot, "speculative decoding")
        before = shown_ids(app)
        commands["Filter kind: paper_card"].callback()
        await wait_for(pilot, lambda: shown_ids(app) != before, "the kind filter")
        assert {hit.kind.value for hit in screen.query_one(ResultsTable).items} == {"paper_card"}


@drive
async def test_an_arxiv_id_as_the_query_jumps_to_its_records(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "2609.22222")
        hits = search_screen(app).query_one(ResultsTable).items
        assert {hit.id for hit in hits} == {"card/2609.22222", "tom/2026-09-15#1"}
        assert search_screen(app).query_one(RecordDetail).record_id == hits[0].id


@drive
async def test_cjk_titles_keep_the_columns_aligned(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "解码 decoding")
        table = search_screen(app).query_one(ResultsTable)
        titles = [hit.title for hit in table.items]
        assert any(cell_len(t) != len(t) for t in titles) and any(cell_len(t) == len(t) for t in titles)
        lines = [table.render_line(y).text for y in range(1, 1 + len(titles))]
        widths = {cell_len(line) for line in lines}
        assert len(widths) == 1  # no row is wider than another, whatever its script
        date_columns = set()
        for line, hit in zip(lines, table.items, strict=True):
            if hit.date is not None:
                date_columns.add(cell_len(line[: line.index(str(hit.date))]))
        assert len(date_columns) == 1


@drive
async def test_record_text_with_markup_and_escapes_is_shown_literally(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "Markup probe not bold click")
        screen = search_screen(app)
        table = screen.query_one(ResultsTable)
        row = [hit.id for hit in table.items].index(HOSTILE_ID)
        title_cell = table.get_row_at(row)[-1]
        assert isinstance(title_cell, Text) and not title_cell.spans
        assert title_cell.plain == "Markup probe [bold]not bold[/bold] [link=https://evil.example]click[/link]"
        table.focus()
        table.move_cursor(row=row)
        detail = screen.query_one(RecordDetail)
        await wait_for(pilot, lambda: detail.record_id == HOSTILE_ID, "the hostile record's detail")
        literals = [
            "[bold]not bold[/bold]",
            "[link=https://evil.example]click[/link]",
            "[red]not red[/red]",
            "[@click=app.quit]not a button[/]",
        ]
        # The body's Markdown renders after the selection; a fixed pause was too short on a busy machine.
        await wait_for(
            pilot,
            lambda: all(literal.replace(" ", "&#160;") in app.export_screenshot() for literal in literals),
            "every markup literal shown as text",
            timeout=20.0,
        )
        screenshot = app.export_screenshot()
        body = detail.query_one(Markdown).source
        assert "\x1b" not in body and "\x07" not in body and "red" in body
        assert "\x1b" not in screenshot and "[31m" not in screenshot
        assert app.is_running  # an [@click=app.quit] that was interpreted could not have quit it


@pytest.mark.parametrize("briefing", LAYOUT_0919)
@drive
async def test_check_screen_shows_five_verdicts_for_a_briefing(index: str, briefing: Briefing) -> None:
    seed = briefing.path
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        screen = app.screen
        assert isinstance(screen, CheckScreen)
        screen.query_one("#path", Input).value = str(seed)
        screen.query_one("#path", Input).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.result is not None, "the check")
        table = screen.query_one(VerdictTable)
        assert table.row_count == 5
        cells = [str(table.get_row_at(row)[0]) for row in range(5)]
        assert set(cells) <= {"NEW", "UPDATE", "DUPLICATE"}
        with KnowledgeBase.open(index) as kb:
            expected = kb.check(str(seed))
        assert cells == [item.verdict.value for item in expected.items]
        summary = str(screen.query_one("#check-summary", Static).render())
        assert "5 items" in summary


@drive
async def test_the_check_summary_shows_what_the_parser_skipped(index: str, tmp_path: Path) -> None:
    """An increment with no title has no row; the summary says so, as the CLI's warnings on stderr do."""
    skipped = tmp_path / "brief.md"
    skipped.write_text(
        "inference · E1 预消化简报(2026-09-20)\n增量 1：Ring buffers for KV pages（⭐⭐）\n要点：\n- a point\n"
        "增量 2：⭐⭐\n要点：\n- a point under no title\n本报告由 Tom 实例自动生成\n",
        encoding="utf-8",
    )
    async with make_app(index).run_test(size=SIZE) as pilot:
        screen = await check_on_screen(pilot, str(skipped))
        assert screen.query_one(VerdictTable).row_count == 1
        summary = str(screen.query_one("#check-summary", Static).render())
        assert "warning: line 5: increment without a title; skipped" in summary


@drive
async def test_accept_is_all_or_nothing_and_asks_first(index: str) -> None:
    """A briefing holding a DUPLICATE is not offered for accepting (issue 24: the CLI's contract);
    one without is, after a confirmation, and then every item is stored."""
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.stats is not None, "the stats")
        before = app.stats.records if app.stats else 0
        await pilot.press("f3")
        screen = app.screen
        assert isinstance(screen, CheckScreen)
        screen.start(str(BRIEFING), None)
        await wait_for(pilot, lambda: screen.result is not None, "the check")
        assert screen.result is not None and Verdict.DUPLICATE in [i.verdict for i in screen.result.items]
        screen.query_one(VerdictTable).focus()
        await pilot.press("ctrl+a")
        assert app.screen is screen
        assert any(n.message.startswith("Nothing accepted: ") for n in app._notifications)
        screen.start("-", "Cached-input pricing at one tenth of list price\nthree providers bill cached tokens at 10%")
        await wait_for(pilot, lambda: screen.result is not None and screen.result.input == "-", "the second check")
        keep = [item.id for item in screen.result.items]
        assert [item.verdict for item in screen.result.items] == [Verdict.NEW]
        screen.query_one(VerdictTable).focus()
        await pilot.press("ctrl+a")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        assert app.screen is screen and not screen.result.accepted
        await pilot.press("ctrl+a", "ctrl+y")
        await wait_for(pilot, lambda: bool(screen.result and screen.result.accepted), "the accept")
        assert screen.result.accepted == keep
        await wait_for(
            pilot,
            lambda: app.stats is not None and app.stats.records == before + len(keep),
            "the stats to count the accepted records",
        )
    with KnowledgeBase.open(index) as kb:
        assert [kb.show(record_id).id for record_id in keep] == keep


@drive
async def test_pasted_text_is_checked_as_stdin(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        screen = app.screen
        assert isinstance(screen, CheckScreen)
        await pilot.press("ctrl+t")
        area = app.screen.query_one("#paste-text")
        area.text = "Contamination audit for coding-agent benchmarks\n7% of tasks appear verbatim in crawls"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.result is not None, "the check of pasted text")
        assert screen.result is not None and screen.result.input == "-"
        assert len(screen.result.items) == 1


@drive
async def test_audit_screen_lists_clusters_largest_first_and_expands(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        await wait_for(pilot, lambda: screen.result is not None, "the audit")
        assert screen.result is not None
        sizes = [cluster.size for cluster in screen.result.clusters]
        assert sizes == sorted(sizes, reverse=True) and sizes[0] >= 2
        tree = screen.query_one(ClusterTree)
        first = tree.root.children[0]
        assert not first.is_expanded
        await pilot.press("enter")
        assert first.is_expanded
        # a member's row, then (indented) the CLI's "same item as …" and "held by …" lines about it
        rows = [child for child in first.children if not child.label.plain.startswith(" ")]
        labels = [child.label.plain for child in rows]
        members = [child.data for child in rows]
        roles = ["in doc" if m.kind is Kind.doc_section else "again" for m in members[1:]]  # type: ignore[attr-defined]
        assert labels[0].startswith("first") and all(map(str.startswith, labels[1:], roles))
        assert len(labels) == sizes[0]


@drive
async def test_help_lists_the_bindings_and_closes(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        table = app.screen.query_one("#help-keys")
        rows = [" ".join(str(c) for c in table.get_row_at(r)) for r in range(table.row_count)]  # type: ignore[attr-defined]
        assert any(ACCEPT in row for row in rows)
        assert any("f3" in row and "Check" in row for row in rows)
        await pilot.press("escape")
        assert isinstance(app.screen, SearchScreen)
        search_screen(app).query_one(ResultsTable).focus()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)


@pytest.mark.parametrize("mode", ["search", "check", "audit"])
@drive
async def test_every_key_binding_is_in_the_command_palette(index: str, mode: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode(mode)
        await pilot.pause()
        titles = {command.title for command in app.get_system_commands(app.screen)}
        wanted = {b.description for b in [*type(app.screen).BINDINGS, *KbApp.BINDINGS] if getattr(b, "description", "")}
        assert wanted <= titles


@drive
async def test_errors_are_notifications_not_tracebacks(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        screen = app.screen
        assert isinstance(screen, CheckScreen)
        screen.start("no/such/briefing.md", None)
        await wait_for(
            pilot, lambda: any("no such file" in n.message for n in app._notifications), "the error notification"
        )
        assert app.is_running and screen.result is None
        note = next(n for n in app._notifications if "no such file" in n.message)
        assert note.severity == "error" and not note.markup


@drive
async def test_without_an_index_the_app_says_how_to_build_one(
    fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app("missing")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.problem is not None, "the open to fail")
        assert "no index at missing" in (app.problem or "")
        detail = search_screen(app).query_one(RecordDetail)
        text = str(detail.query_one("#record-head", Static).render())
        assert "kbsearch ingest" in text
        assert any("no index" in n.message for n in app._notifications)
    assert not (tmp_path / "missing").exists()  # opening to look never creates an index


def test_the_tui_command_opens_the_app_on_the_given_index(monkeypatch: pytest.MonkeyPatch) -> None:
    import kbsearch.tui
    from kbsearch.cli import main

    calls: list[tuple[str | None, str | None]] = []
    monkeypatch.setattr(kbsearch.tui, "run", lambda index, model: calls.append((index, model)) or 0)
    assert main(["tui", "--index", "some/dir", "--model", "fake"]) == 0
    assert calls == [("some/dir", "fake")]
