"""The TUI's check screen accepts all but the DUPLICATEs (ctrl+s), as ``check --accept --skip-duplicates``.

ctrl+a accepts all or nothing; a briefing holding a DUPLICATE was stored by nobody short of
editing it. ctrl+a's refusal now names ctrl+s, which asks first, then makes the CLI's call: the
rest is stored, the DUPLICATEs are skipped and remembered, so ``kbsearch ingest`` of the
file leaves them out too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tui_support import BRIEFING, SIZE, build_index, check_on_screen, drive, wait_for

from kbsearch.dedupe.results import Verdict
from kbsearch.kb import KnowledgeBase
from kbsearch.tui import make_app
from kbsearch.tui.check_screen import CheckScreen
from kbsearch.tui.confirm_screen import ConfirmScreen
from kbsearch.tui.verdict_table import VerdictTable


@pytest.fixture
def index(fake_models: Path, tmp_path: Path) -> str:
    build_index(tmp_path / "idx")
    return str(tmp_path / "idx")


@drive
async def test_ctrl_s_accepts_all_but_the_duplicates_and_ingest_leaves_them_out(index: str, tmp_path: Path) -> None:
    briefing = Path(shutil.copy(BRIEFING, tmp_path / BRIEFING.name))
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        screen = await check_on_screen(pilot, str(briefing))
        assert isinstance(screen, CheckScreen) and screen.result is not None
        duplicates = [i.id for i in screen.result.items if i.verdict is Verdict.DUPLICATE]
        rest = [i.id for i in screen.result.items if i.verdict is not Verdict.DUPLICATE]
        assert duplicates and rest
        screen.query_one(VerdictTable).focus()
        await pilot.press("ctrl+a")  # all or nothing: refused, and the refusal offers ctrl+s
        assert app.screen is screen and any("ctrl+s accepts all but" in n.message for n in app._notifications)
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("ctrl+y")
        await wait_for(pilot, lambda: bool(screen.result and screen.result.accepted), "the accept")
        assert screen.result is not None and screen.request is not None and screen.request.skip_duplicates
        assert screen.result.accepted == rest and [s.id for s in screen.result.skipped] == duplicates
        assert any("Skipped" in n.message and duplicates[0] in n.message for n in app._notifications)
    with KnowledgeBase.open(index) as kb:
        report = kb.ingest([briefing])
        assert [s.id for s in report.skipped] == duplicates and report.added == 0
        assert all(kb.store.get(rid) is None for rid in duplicates)
