"""Records built ahead for a warm process's checks (``kb.warm_checks``, ``serve --warm-records``):
a check then builds none of them, reads nothing of their text for the first time, and
decides as a check without them; a write before a turn has the warming plan again, and
after a write the server builds what it added, keeping the rest."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from serve_support import BRIEFING, build_index, service_for
from support.files import write_jsonl
from support.kept_rows import watch_builds
from test_judge import ITEM, KNOWN, judge_encoder, judged_models  # noqa: F401
from test_judge_claims_kept import _config, _kb

import kbsearch.dedupe.record_text as record_text
from kbsearch.dedupe.kept_records import KEPT_RECORDS, kept_records
from kbsearch.errors import Busy
from kbsearch.kb import KnowledgeBase
from kbsearch.kb.warm_checks import records_to_warm, warm_checks
from kbsearch.serve.warming import Warming

NEW = {"id": "k-paged", "title": "PagedAttention pages the KV cache", "text": "vLLM keeps KV cache blocks in pages"}


def _soon(condition: Callable[[], bool], seconds: float = 30) -> bool:
    """Whether ``condition`` holds within ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _held(kb: KnowledgeBase) -> tuple[list[int], list[int]]:
    with kb.store.snapshot():
        return sorted(kept_records(kb.store).held()), sorted(kb.store.all_rowids())


def test_records_built_ahead_spare_a_check_their_building_and_first_reading(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = _config()
    item = {**ITEM, "id": "i-warm"}
    with _kb(tmp_path / "cold", judge_encoder()) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        cold = kb.check(str(write_jsonl(tmp_path / "item.jsonl", [item])), config=config)
    with _kb(tmp_path / "warm", judge_encoder()) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        generation, rowids = records_to_warm(kb, 100)
        assert rowids == sorted(rowids, reverse=True) and len(rowids) == len(KNOWN)
        assert warm_checks(kb, rowids, KEPT_RECORDS + 1, generation)
        with kb.store.snapshot():
            kept = kept_records(kb.store)
            assert sorted(kept.held()) == sorted(rowids)
            assert kept.capacity == KEPT_RECORDS + 1, "room for every record built ahead"
        read = watch_builds(kb, monkeypatch)
        first_read: list[str] = []
        real_read = record_text.text_property.__get__

        def reading(self, instance, owner=None):  # type: ignore[no-untyped-def]
            if instance is not None and self.func.__name__ not in instance.__dict__["_shared"]:
                first_read.append(f"{instance.record.id}.{self.func.__name__}")
            return real_read(self, instance, owner)

        monkeypatch.setattr(record_text.text_property, "__get__", reading)
        warm = kb.check(str(write_jsonl(tmp_path / "item.jsonl", [item])), config=config)
    assert not read, "every candidate was built ahead"
    known = {k["id"] for k in KNOWN}
    assert not [r for r in first_read if r.split(".")[0] in known and r.split(".")[1] in record_text.FIRST_READ]
    assert warm.model_dump_json() == cold.model_dump_json()


def test_a_write_before_a_turn_builds_nothing_of_the_old_plan(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    with _kb(tmp_path, judge_encoder()) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN[:1])])
        generation, rowids = records_to_warm(kb, 100)
        kb.ingest([write_jsonl(tmp_path / "more.jsonl", KNOWN[1:])])
        assert not warm_checks(kb, rowids, 100, generation)
        with kb.store.snapshot():
            assert kept_records(kb.store).held() == []


def test_the_server_builds_the_newest_records_ahead_for_its_short_checks(
    tmp_path: Path, fake_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("kbsearch.serve.warming.WARM_TURN", 1)  # a turn a record: every turn queued in turn
    index = build_index(tmp_path)
    service = service_for(index, warm_records=3)
    try:
        assert service.warming.done.wait(30) and service.warming.built == 3

        kept, every = service._quick_checkers.submit(_held).result()
        assert sorted(kept) == every[-3:], "the three newest"
        assert service._quick_checkers.submit(lambda kb: kb.check_text(BRIEFING)).result().items
    finally:
        service.close()


def test_after_an_accept_the_server_builds_the_record_it_added_and_keeps_the_others(
    tmp_path: Path, fake_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("kbsearch.serve.warming.WATCH_SECONDS", 0.05)
    index = build_index(tmp_path)
    service = service_for(index, warm_records=10)
    try:
        assert service.warming.done.wait(30) and service.warming.built == 4
        before, _ = service._quick_checkers.submit(_held).result()
        accept = lambda kb: kb.check_text(json.dumps(NEW), name="accept.jsonl", accept=True)  # noqa: E731
        assert service._writer.submit(accept).result().accepted == ["k-paged"]
        assert _soon(lambda: service.warming.built == 5), "the record the accept added, built at the next look"
        kept, every = service._quick_checkers.submit(_held).result()
        assert kept == every == [*before, max(every)], "the others kept across the write"
    finally:
        service.close()


def test_a_full_queue_puts_the_building_off_to_the_next_look(
    tmp_path: Path, fake_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("kbsearch.serve.warming.WATCH_SECONDS", 0.05)
    service = service_for(build_index(tmp_path), warm_records=0)

    class BusyOnce:
        refused = 0

        def submit(self, job: Callable[[KnowledgeBase], None]) -> object:
            if not self.refused:
                self.refused += 1
                raise Busy("the server is busy")
            return service._quick_checkers.submit(job)

    warming = Warming(BusyOnce(), 3, lambda: False)  # type: ignore[arg-type]
    try:
        assert warming.done.is_set() and warming.built == 0, "the checks waiting go first"
        assert _soon(lambda: warming.built == 3)
    finally:
        warming.close()
        service.close()


def test_no_records_built_ahead_when_told_none(tmp_path: Path, fake_models: Path) -> None:
    index = build_index(tmp_path)
    service = service_for(index, warm_records=0)
    try:
        assert service.warming.done.is_set() and service.warming.built == 0
    finally:
        service.close()


def test_warming_waits_while_the_check_queue_is_full() -> None:
    class Full:
        def submit(self, job: object) -> None:
            raise Busy("the server is busy")

    warming = Warming(Full(), 10, lambda: False)  # type: ignore[arg-type]
    assert warming.done.is_set() and warming.built == 0
    warming.close()
