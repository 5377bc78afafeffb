"""Two gates at once: the later of two repeats is a DUPLICATE, never a second NEW.

Two writers' cron jobs run `check --accept` at the same minute. Each judged its
items in a snapshot of the index taken before the other had stored anything,
so both saw the item as NEW and both stored it. An accept now notices, under
the writer lock, that the index moved since its check read it, and judges
again before storing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.briefings import written_briefing
from support.cli import ingest_rows, run

from kbsearch.dedupe import check as gate
from kbsearch.dedupe.results import Verdict
from kbsearch.kb import KnowledgeBase

ITEM = (
    "FlashInfer 0.6 adds FP4 attention kernels for Blackwell",
    "FP4 attention kernels reach 1.9x the FP8 throughput on B200 at equal accuracy",
)


def briefing(tmp_path: Path, writer: str) -> Path:
    path = tmp_path / "inbox" / writer / f"2026-10-10-{writer}-inference-e1prep.md"
    path.parent.mkdir(parents=True)
    path.write_text(written_briefing("2026-10-10", [(*ITEM, f"inbox/{writer}")]), encoding="utf-8")
    return path


def test_two_writers_accepting_one_item_at_once_store_it_once(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    base = [{"id": "jay-note", "title": "量子退火 调度 电网", "text": "电网 负荷 预测", "date": "2026-09-01"}]
    index = ingest_rows(capsys, tmp_path, base)
    tom, jay = briefing(tmp_path, "tom"), briefing(tmp_path, "jay")
    judge = gate.Checker.check
    others: list[Verdict] = []

    def jay_accepts_while_tom_is_judged(self: gate.Checker, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        result = judge(self, *args, **kwargs)  # type: ignore[arg-type]
        if not others:  # tom's first judgement is done; jay's accept lands before tom's
            others.append(Verdict.NEW)
            with KnowledgeBase.open(index) as other:
                others[0] = other.check(str(jay), accept=True).items[0].verdict
        return result

    monkeypatch.setattr(gate.Checker, "check", jay_accepts_while_tom_is_judged)
    with KnowledgeBase.open(index) as kb:
        result = kb.check(str(tom), accept=True)
    assert others == [Verdict.NEW]
    assert [i.verdict for i in result.items] == [Verdict.DUPLICATE] and result.accept_refused
    code, out, _ = run(capsys, "list", "--format", "ids", "--index", str(index))
    assert code == 0 and sorted(set(out.split()) - {"jay-note"}) == ["jay/2026-10-10-jay-inference-e1prep#1"]
