"""The TUI's check view shows what ``check`` says of an item, in the CLI's words: the doc
section that held the item before its first seen record (``held_in_doc``, "held by doc/…
since DATE" beside the first seen) and what an accepting run did with it (``outcome``).
Both were in ``check --json`` and the CLI's text, and missing from the detail pane.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Static
from tui_support import SIZE, check_on_screen, drive, wait_for

from kbsearch.cli import main
from kbsearch.dedupe.results import ItemResult
from kbsearch.kb import KnowledgeBase
from kbsearch.render import item_text as cli_item_text
from kbsearch.render.dedupe import OUTCOME_WORDS
from kbsearch.tui import make_app
from kbsearch.tui.check_screen import CheckScreen
from kbsearch.tui.item_detail import item_text

PAPER = "2611.40001"
TITLE = "RelayDecode: speculative decoding with a relay of small drafters"
TEXT = f"RelayDecode (arXiv {PAPER}) chains two small drafters and accepts 4.1 tokens per step."
KNOWN = [
    {"id": "tom/2026-11-02#1", "instance": "tom", "date": "2026-11-02", "title": TITLE, "text": TEXT},
    {"id": "ann/x#1", "title": "GPU health", "text": "per-card step time alarms"},
    {
        "id": "doc/inference#§1.3", "kind": "doc_section", "date": "2026-11-01", "title": "§1.3 speculative decoding",
        "text": f"- RelayDecode (arXiv {PAPER}): a relay of small drafters.\n- TreeShift: draft trees per batch.",
    },
]  # fmt: skip
REPEAT = {"id": "stephen/2026-11-03#1", "instance": "stephen", "date": "2026-11-03", "anchor": "本次新增"}
HELD = "first seen: tom 2026-11-02 tom/2026-11-02#1, held by doc/inference §1.3 since 2026-11-01"
FRESH = {"id": "spark/2026-11-03#1", "instance": "spark", "date": "2026-11-03", "title": "GPU fleet", "text": "x"}


def jsonl(path: Path, *rows: dict[str, str]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> str:
    folder = tmp_path / "idx"
    assert main(["ingest", str(jsonl(tmp_path / "known.jsonl", *KNOWN)), "--index", str(folder)]) == 0
    return str(folder)


def shown(screen: CheckScreen, widget: str) -> str:
    return str(screen.query_one(widget, Static).render())


@drive
async def test_the_detail_pane_says_which_doc_section_held_the_item_as_the_cli_does(index: str, tmp_path: Path) -> None:
    repeat = jsonl(tmp_path / "stephen.jsonl", {**REPEAT, "title": TITLE, "text": TEXT})
    with KnowledgeBase.open(index) as kb:
        [item] = kb.check(str(repeat)).items
    assert f"   {HELD}\n" in cli_item_text(item)
    async with make_app(index).run_test(size=SIZE) as pilot:
        screen = await check_on_screen(pilot, str(repeat))
        await pilot.pause(0.1)
        assert HELD in shown(screen, "#item-text")


@drive
async def test_the_detail_pane_and_summary_say_what_an_accept_did_with_each_item(index: str, tmp_path: Path) -> None:
    fresh = jsonl(tmp_path / "fresh.jsonl", FRESH)
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        screen = await check_on_screen(pilot, str(fresh))
        assert "outcome:" not in shown(screen, "#item-text")  # checked only: nothing was done
        await pilot.press("ctrl+a", "ctrl+y")
        await wait_for(pilot, lambda: bool(screen.result and screen.result.accepted), "the accept")
        await pilot.pause(0.1)
        assert f"outcome: {OUTCOME_WORDS['stored']}" in shown(screen, "#item-text")
        assert screen.request is not None
        screen.result = None
        screen.check_worker(screen.request)  # the same accept again: stored so already
        await wait_for(pilot, lambda: screen.result is not None, "the second accept")
        await pilot.pause(0.1)
        assert f"outcome: {OUTCOME_WORDS['unchanged']}" in shown(screen, "#item-text")
        assert "accepted 1 (1 unchanged)" in shown(screen, "#check-summary")


@pytest.mark.parametrize("outcome", ["stored", "replaced", "unchanged", "refused"])
def test_each_outcome_is_said_in_the_tui_as_in_the_cli(outcome: str) -> None:
    item = ItemResult(
        id="spark/x#1", title="t", kind="increment", instance="spark", date=None, verdict="NEW", reason="r"
    ).model_copy(update={"outcome": outcome, "resubmitted": outcome == "unchanged"})
    cli = [line.strip() for line in cli_item_text(item).splitlines()]
    tui = item_text(item).plain.splitlines()
    said = [line for line in cli if line.startswith("outcome: ") or line.startswith("this very text")]
    assert len(said) == 1 + (outcome == "unchanged") and all(line in tui for line in said)
