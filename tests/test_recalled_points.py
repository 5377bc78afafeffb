"""A background point is read for the fact it recalls, without its label
(``background_facts.recalled_said``, ``background.recalled_fact``; probe 50).

Read with its "Background:" label, an English point recalling a record written in Chinese was
weighed against another record's labelled English point, which shares the label and a few words,
instead of the recalled record's sentence: the label is no part of the fact. The fixtures are
written for these tests: a fake token encoder that reads "scored" and "on" as their Chinese words,
and a claim form that says a passage covering most of a claim's tokens with its figures."""

from __future__ import annotations

import datetime as dt

import pytest
from test_claim_said import form

from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.dedupe.background import is_background, recalled_fact
from kbsearch.dedupe.background_facts import recalled_said
from kbsearch.dedupe.claim_decision import ClaimDecision
from kbsearch.dedupe.claims import PassageHit, PassageReader
from kbsearch.dedupe.results import ClaimStatus
from kbsearch.dedupe.rules import Embedded
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()
FORM = form({"coverage": 40.0, "numbers_missing": -20.0, "bias": -27.0})
POINT = "Background: Corvex-2 scored 0.82 on TriageQA"
RECALLED = "Corvex-2 TriageQA 成绩 0.82"  # the recalled record, in Chinese
ANOTHER = "Background: Halvard-1 scored 0.74 on TriageQA"  # another item's labelled point


def _record(rid: str, point: str) -> Embedded:
    record = Record(
        id=rid, kind=Kind.increment, instance=rid.split("/")[0], date=dt.date(2026, 9, 1),
        title=f"{rid} title", text="", claims=[point],
    )  # fmt: skip
    return Embedded(record, ENCODER.encode(record.passages()))


def _read(point: str) -> ClaimStatus:
    vector = ENCODER.encode([point])[0]
    stored = [_record("ann/09-01#1", RECALLED), _record("bo/09-02#1", ANOTHER)]
    hits = [PassageHit(k, i, c) for k in stored for i, c in k.facts(k.vectors @ vector)]
    hits = sorted(hits, key=lambda h: -h.cosine)
    reader = PassageReader(FakeEncoder("fakejudge", 16), FakeTokenEncoder({"scored": "成绩", "on": "在"}))
    shown = ClaimStatus(text=point, known=False, score=0.0, threshold=0.5)
    status, _ = recalled_said(point, vector, frozenset({point}), shown, hits, (None, reader, FORM, False))  # type: ignore[arg-type]
    return status


def test_a_labelled_point_is_weighed_for_its_fact_against_the_recalled_record() -> None:
    status = _read(POINT)
    assert status.known and status.best_id == "ann/09-01#1", status
    assert status.decided_by is ClaimDecision.background
    assert status.text == POINT  # shown in the point's own words, label and all


@pytest.mark.parametrize(
    ("point", "fact"),
    [
        ("Background: Corvex-2 scored 0.82", "Corvex-2 scored 0.82"),
        ("- Context - the launch was on 9-01", "the launch was on 9-01"),
        ("背景：Corvex-2 得分 0.82", "Corvex-2 得分 0.82"),
        ("背景信息：Corvex-2 得分 0.82", "Corvex-2 得分 0.82"),
        ("For background: Corvex-2 scored 0.82", "Corvex-2 scored 0.82"),
        ("As reported on 9-01, Corvex-2 scored 0.82", "Corvex-2 scored 0.82"),
        ("Corvex-2 scored 0.82", "Corvex-2 scored 0.82"),  # no label: the point as it is
    ],
)
def test_the_recalled_fact_is_the_point_without_its_label(point: str, fact: str) -> None:
    assert recalled_fact(point) == fact


@pytest.mark.parametrize(
    ("point", "background"),
    [
        ("背景信息：Corvex-2 得分 0.82", True),
        ("相关背景：Corvex-2 得分 0.82", True),
        ("For background: Corvex-2 scored 0.82", True),
        ("Backdrop: Corvex-2 scored 0.82", True),
        ("As a reminder: Corvex-2 scored 0.82", True),
        ("Recall: 0.82 at one false positive per scan", False),  # a metric, not a label
        ("Context: 128k-token window", False),  # a context length
    ],
)
def test_the_labels_writers_use_in_either_language(point: str, background: bool) -> None:
    assert is_background(point, "Halvard-1 triage model") is background
