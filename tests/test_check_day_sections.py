"""A check of an item dated D reads the doc sections dated D as written after it (probe 13, 6 December).

An editor folds the day's accepted items into the living doc that evening, and the doc's
date is its last update: re-checking the accepted briefing found each item DUPLICATE of the
section it was folded into, first seen there, so a pipeline retrying ``check --accept &&
publish`` failed. On one day a section comes after the rest (docs/dedupe.md)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from test_finer_passages import OTHER, check, increment

from kbsearch.dedupe.results import Verdict
from kbsearch.records import Kind, Record


def section(day: int) -> Record:
    return Record(
        id="doc/serving#§1.1", kind=Kind.doc_section, title="§1.1 量化", date=dt.date(2026, 11, day),
        text="KV 量化：Pebble（arXiv:2601.22222）把缓存量化到 3 bit，长序列下内存减少 6.4x，得分损失小于 0.3 分。",
        arxiv_ids=["2601.22222"],
    )  # fmt: skip


CLAIMS = ["长序列下内存减少 6.4x", "得分损失小于 0.3 分"]


def test_a_section_of_the_items_own_day_is_no_evidence_nor_its_first_seen(tmp_path: Path) -> None:
    item = check(tmp_path, [section(9), OTHER], increment(CLAIMS, ["2601.22222"], day=9))
    assert item.verdict is Verdict.NEW
    assert not any(c.known for c in item.claims)
    assert item.first_seen is None
    assert all(m.id != "doc/serving#§1.1" for m in item.matches)


def test_a_section_of_an_earlier_day_still_states_the_claims(tmp_path: Path) -> None:
    item = check(tmp_path, [section(8), OTHER], increment(CLAIMS, ["2601.22222"], day=9))
    assert item.verdict is Verdict.DUPLICATE
    assert item.first_seen is not None and item.first_seen.id == "doc/serving#§1.1"
