"""The detail pane's nearest records are ``kbsearch similar``'s, judged the same way
(probe 16: a plain search on the record's text listed five other items and left out
the one record that repeated it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Markdown, OptionList, Static
from tui_support import SIZE, build_index, drive, search_for, search_screen, wait_for

from kbsearch.dedupe.results import Neighbours
from kbsearch.errors import KbError
from kbsearch.kb import KnowledgeBase, SearchFilter
from kbsearch.models import resolve_model
from kbsearch.tui import make_app
from kbsearch.tui.hits import body
from kbsearch.tui.record_detail import NEIGHBOURS_K, RecordDetail
from kbsearch.tui.results_table import ResultsTable

REPEATED = "jay/2026-09-10#1"
"""A record two others repeat (an increment and its paper card), by ``similar``'s judgement."""


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    build_index(tmp_path / "idx")
    return "idx"


@drive
async def test_the_nearest_records_are_similars_with_the_same_item_first_and_marked(index: str) -> None:
    with KnowledgeBase.open(index) as kb:
        similar = kb.similar(REPEATED, NEIGHBOURS_K).matches
    same = [m.id for m in similar if m.same_item]
    assert len(same) == 2 and [m.id for m in similar[:2]] == same
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "RingKV ring buffer")
        screen = search_screen(app)
        table = screen.query_one(ResultsTable)
        table.move_cursor(row=[hit.id for hit in table.items].index(REPEATED))
        detail = screen.query_one(RecordDetail)
        heading = detail.query_one("#record-neighbours-head", Static)
        await wait_for(pilot, lambda: detail.record_id == REPEATED, "the record's detail")
        await wait_for(pilot, lambda: "looking" not in str(heading.render()), "its nearest records")
        assert "≡ the same item: 2, listed first" in str(heading.render())
        options = detail.query_one("#record-neighbours", OptionList)
        shown = [options.get_option_at_index(i) for i in range(options.option_count)]
        assert [option.id for option in shown] == [m.id for m in similar]
        marked = [option.id for option in shown if str(option.prompt).lstrip().startswith("≡")]
        assert marked == same


@drive
async def test_a_similar_that_cannot_judge_says_why_in_the_pane(index: str) -> None:
    class NoJudge(KnowledgeBase):
        def similar(self, record_id: str, k: int = 10, flt: SearchFilter | None = None) -> Neighbours:
            raise KbError("the index at idx keeps judge vectors of 'j1', not 'j2'", hint="run 'kbsearch reindex'")

    app = make_app(index, open_kb=lambda: NoJudge(Path(index), resolve_model(None)))
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "RingKV ring buffer")
        detail = search_screen(app).query_one(RecordDetail)
        heading = detail.query_one("#record-neighbours-head", Static)
        await wait_for(pilot, lambda: "Nearest records" in str(heading.render()), "the nearest records")
        assert "keeps judge vectors of 'j1', not 'j2'" in str(heading.render())
        assert detail.query_one("#record-neighbours", OptionList).option_count == 0
        with KnowledgeBase.open(index) as kb:
            stored = body(kb.show(str(detail.record_id)))
        assert detail.query_one("#record-body", Markdown).source == stored  # the stored record is shown
