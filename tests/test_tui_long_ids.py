"""A long record id (``tom/2026-09-16-tom-inference-e1prep#2``) in a narrow pane (an
80x24 terminal) is shown whole: it breaks only after a ``/`` or before the ``#``, never
mid-word, and nothing of it is cut (a probe: it was folded mid-word, unreadable and
uncopyable). Driven with Pilot over the fake encoder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.text import Text
from textual.widget import Widget
from tui_support import check_on_screen, drive, search_for, search_screen, wait_for

from kbsearch.cli import main
from kbsearch.tui import make_app
from kbsearch.tui.id_lines import fitted
from kbsearch.tui.item_detail import ItemDetail
from kbsearch.tui.record_detail import RecordDetail

TOM = "tom/2026-09-16-tom-inference-e1prep#2"
JAY = "jay/2026-09-17-jay-inference-e1prep#1"
ROWS = [
    {"id": TOM, "title": "RingKV ring buffer KV cache reuse", "text": "A ring buffer keeps the KV cache of each turn.",
     "claims": ["Ring buffers raise KV cache reuse to 83%"], "instance": "tom", "date": "2026-09-16",
     "source": "inbox/tom/2026-09-16-tom-inference-e1prep.md"},
    {"id": JAY, "title": "RingKV ring buffer for chat KV reuse", "text": "A ring buffer for the KV cache of chats.",
     "claims": ["Ring buffers raise KV cache reuse to 83%"], "instance": "jay", "date": "2026-09-17"},
]  # fmt: skip
SIZE = (80, 24)


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    assert main(["ingest", str(source), "--index", "idx"]) == 0
    return "idx"


def screen_lines(*widgets: Widget) -> list[str]:
    """The lines the widgets show, as on the screen (each as wide as its pane)."""
    return [widget.render_line(y).text.rstrip() for widget in widgets for y in range(widget.size.height)]


def shown_whole(lines: list[str], record_id: str) -> bool:
    """The id is on the screen, on one line or broken only after a / or before the #."""
    words = [word for line in lines for word in line.split()]
    for start, word in enumerate(words):
        joined = word
        for following in words[start + 1 : start + 4]:
            if joined == record_id:
                break
            if not (joined.endswith("/") or following.startswith("#")):
                break
            joined += following
        if joined == record_id:
            return True
    return False


@drive
async def test_the_detail_pane_shows_a_long_id_whole(index: str) -> None:
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "RingKV ring buffer")
        detail = search_screen(app).query_one(RecordDetail)
        await wait_for(pilot, lambda: detail.record_id is not None, "the detail")
        await wait_for(pilot, lambda: bool(detail.query_one("#record-neighbours").option_count), "a neighbour")
        await pilot.pause(0.2)
        lines = screen_lines(detail.query_one("#record-head"), detail.query_one("#record-neighbours"))
        print("\n".join(lines))
        assert shown_whole(lines, detail.record_id or ""), lines
        other = JAY if detail.record_id == TOM else TOM
        assert shown_whole(lines, other), lines  # the neighbour's id


@drive
async def test_the_check_view_shows_long_ids_whole(index: str, tmp_path: Path) -> None:
    today = tmp_path / "today.jsonl"
    row = {**ROWS[0], "id": "spark/2026-09-18-spark-inference-e1prep#3", "instance": "spark", "date": "2026-09-18"}
    today.write_text(json.dumps(row) + "\n", encoding="utf-8")
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        screen = await check_on_screen(pilot, str(today))
        await pilot.pause(0.2)
        lines = screen_lines(screen.query_one(ItemDetail).query_one("#item-text"))
        print("\n".join(lines))
        assert shown_whole(lines, row["id"]), lines
        assert shown_whole(lines, TOM), lines


@pytest.mark.parametrize(
    ("line", "width", "lines"),
    [
        # every word fits: left to Textual, which moves the id whole to the next line
        ("      id tom/2026-09-16-tom-inference-e1prep#2", 40, ["      id tom/2026-09-16-tom-inference-e1prep#2"]),
        ("      tom/2026-09-16-tom-inference-e1prep#2", 40, ["   tom/2026-09-16-tom-inference-e1prep#2"]),
        (
            "  from tom/2026-09-16-tom-inference-e1prep#12",
            36,
            ["  from tom/", "  2026-09-16-tom-inference-e1prep#12"],
        ),
        ("a title that wraps at its spaces", 10, ["a title that wraps at its spaces"]),  # left to Textual
    ],
)
def test_a_line_breaks_inside_an_id_only_after_a_slash_or_before_the_hash(
    line: str, width: int, lines: list[str]
) -> None:
    assert fitted(Text(line), width).plain.split("\n") == lines
