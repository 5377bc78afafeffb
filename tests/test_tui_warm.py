"""The judge a hybrid search weighs loads at start-up beside the main model (probe 25: it
loaded on the first search, which then took 1-2.6 s with nothing on screen). Until both are
warm a query is answered by the words alone, then searched again by meaning. Driven with
Pilot; the judge is a fake held "loading" until the test lets it go."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from support.files import write
from textual.widgets import Static
from tui_support import CORPUS, drive, search_screen, wait_for

from fake_encoder import FakeEncoder
from kbsearch.cli import main
from kbsearch.kb import KnowledgeBase, SharedEncoder
from kbsearch.models import resolve_judge, resolve_model
from kbsearch.tui import make_app
from kbsearch.tui.results_table import ResultsTable

MODELS = "fake       python:fake_encoder:make dim=64 judge=fakejudge\nfakejudge  python:fake_encoder:make dim=32\n"


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("KBSEARCH_MODELS", str(write(tmp_path / "models.txt", MODELS)))
    monkeypatch.chdir(tmp_path)
    assert main(["ingest", str(CORPUS), "--index", "idx"]) == 0  # keeps the judge's vectors
    return "idx"


@drive
async def test_a_query_before_the_judge_is_loaded_is_answered_by_the_words_then_by_meaning(index: str) -> None:
    spec = resolve_model(None)
    judge_spec = resolve_judge(spec)
    assert judge_spec is not None
    loading = threading.Event()

    def slow_judge(_: object) -> FakeEncoder:
        loading.wait()
        return FakeEncoder("fakejudge", 32)

    encoder = SharedEncoder(spec, inner=FakeEncoder())  # the main model is ready at once
    judge = SharedEncoder(judge_spec, load=slow_judge)  # type: ignore[arg-type]
    app = make_app(index, open_kb=lambda: KnowledgeBase(Path(index), spec, encoder=encoder, judge=judge))  # type: ignore[arg-type]
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for(pilot, lambda: app.stats is not None, "the stats")
            screen = search_screen(app)
            screen.query_one("#query").focus()
            await pilot.press(*"RingKV")
            # promptly: before the fix the search waited for the judge, here forever
            await wait_for(pilot, lambda: screen.last_shown is not None, "words-only results", timeout=10)
            summary = str(screen.query_one("#summary", Static).render())
            assert screen.words_only and "by the words only while the model loads" in summary
            assert screen.query_one(ResultsTable).items and not app.warmed
            loading.set()
            await wait_for(pilot, lambda: app.warmed and not screen.words_only, "the search by meaning")
            assert judge.ready
    finally:
        loading.set()
