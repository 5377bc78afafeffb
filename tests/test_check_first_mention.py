"""A new system's first mention beside a benchmark the store holds five times (probe 27: a
briefing naming Marlin and SWE-bench was UPDATE of another coding agent, Tidewater, the benchmark
read as a rare name the two share; SWE-bench is now a word of the trade, so a made-up CodeQuarry
stands in): check tells the two apart on the first mention, as on a re-check once stored. Check
counts a name's holders in the store, not in its input, as its forms were fitted; explain says
when the pair, its names counted as they were when A came in, reads otherwise than today."""

from __future__ import annotations

from pathlib import Path

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.check import Checker
from kbsearch.dedupe.features import NAME_COUNT_CAP
from kbsearch.dedupe.names import NameHolders, count_then
from kbsearch.dedupe.results import ItemResult, Rule
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, SearchFilter, Store

DAY1 = [
    ("nova/d1#2", "Tidewater Agent 开源，CodeQuarry Verified 68.4%",
     "Tidewater Agent 以 Apache-2.0 开源，基于 OpenAI 模型，在 CodeQuarry Verified 上解决 68.4% 的任务。"),
    ("stephen/d1#1", "Kestrel-Coder reaches 72.1% on CodeQuarry Verified",
     "Lumen Labs reports Kestrel-Coder resolves 72.1% of the 500 CodeQuarry Verified tasks."),
    ("nova/d1#5", "CodeQuarry Verified 污染研究", "CodeQuarry Verified 中 8.7% 任务的补丁见于预训练语料。"),
    ("stephen/d1#6", "Leaderboard notes", "The CodeQuarry Verified leaderboard now asks for a single attempt."),
    ("nova/d1#7", "评测笔记", "多家团队开始同时报告 CodeQuarry Verified 与终端任务的成绩。"),
]  # fmt: skip
MARLIN = Record(
    id="stephen/d2#2", kind=Kind.increment, title="Marlin scores 70.2% on CodeQuarry Verified",
    text="Kite Research's coding agent Marlin reports 70.2% resolved on CodeQuarry Verified, a planner "
    "splitting an issue into edit steps and a reviewer model rejecting patches.",
    claims=["Marlin resolves 70.2% of CodeQuarry Verified tasks, pass@1"],
)  # fmt: skip


def _store(index: Path, encoder: FakeEncoder, records: list[Record]) -> Store:
    store = Store.open(index, create=True)
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    return store


def _check(store: Store, encoder: FakeEncoder) -> ItemResult:
    [result] = Checker(store, encoder, fake_config()).check([MARLIN], file=None, input_name="p").items
    return result


def _tidewater(result: ItemResult) -> Rule | None:
    return next(m.rule for m in result.matches if m.id == "nova/d1#2")


def test_a_first_mention_is_told_apart_by_names_as_its_re_check_once_stored(tmp_path: Path) -> None:
    encoder = FakeEncoder()
    day1 = [Record(id=i, kind=Kind.increment, title=t, text=x, source="/p.md", position=n) for n, (i, t, x) in
            enumerate(DAY1)]  # fmt: skip
    store = _store(tmp_path / "idx", encoder, day1)
    try:
        first = _check(store, encoder)
        ingest_records(store, ChangeSet(upserts=[MARLIN]), model=encoder.model_id, load_encoder=lambda: encoder)
        again = _check(store, encoder)
    finally:
        store.close()
    assert _tidewater(again) is Rule.different_names, again.matches
    assert _tidewater(first) is Rule.different_names, first.matches
    assert not any(m.same_item and m.id == "nova/d1#2" for m in first.matches)


def test_explain_reads_the_names_as_counted_when_a_came_in(tmp_path: Path) -> None:
    """Four day-1 holders of CodeQuarry when Marlin came in (rare); Marlin and two later records
    make seven (common). Explain reads the pair by today's counts and says how the names counted
    as Marlin came in read it."""
    from kbsearch.dedupe.related import load_embedded
    from kbsearch.dedupe.rules import compare, neighbourhood
    from kbsearch.kb.explaining_check import as_came_in, came_in_otherwise

    encoder = FakeEncoder()
    rows = [
        *DAY1[:4],
        ("later#1", "CodeQuarry 复测", "CodeQuarry Verified 复测。"),
        ("later#2", "Notes", "CodeQuarry again."),
    ]
    records = [Record(id=i, kind=Kind.increment, title=t, text=x, source="/p.md", position=n) for n, (i, t, x) in
               enumerate(rows)]  # fmt: skip
    store = _store(tmp_path / "idx", encoder, records[:4])
    try:
        for batch in ([MARLIN], records[4:]):
            ingest_records(store, ChangeSet(upserts=batch), model=encoder.model_id, load_encoder=lambda: encoder)
        config = fake_config()
        loaded = load_embedded(store, [MARLIN.id, "nova/d1#2"], config.judge)
        a, b = loaded[MARLIN.id], loaded["nova/d1#2"]
        then = as_came_in(store, a, b, config, None, [])
        now = compare(a, b, config, neighbourhood(a, [], config), Checker(store, encoder, config).name_count)
        holders = NameHolders(store, NAME_COUNT_CAP)
        arrived = store.rowids_of([MARLIN.id])[MARLIN.id]
        counts = (count_then(holders, arrived, SearchFilter())("codequarry"), holders.count("codequarry"))
    finally:
        store.close()
    # Four holders before Marlin came in (rare), seven now: explain reads the pair both ways. (Which
    # rule decides each reading is the subject rule's now: "on CodeQuarry" is where Marlin scores.)
    assert counts == (4, 7) and then is not None and now.rule is Rule.different_names
    notes = came_in_otherwise(now, then.model_copy(update={"same_item": True}), None)
    assert len(notes) == 1 and notes[0].startswith("check decided otherwise as A came in")
    assert came_in_otherwise(now, then.model_copy(update={"same_item": False}), None) == []
