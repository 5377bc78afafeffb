"""One increment as the rules compare it, embedded by the tiny fake encoder: the name-rule tests
each wrote this helper."""

from __future__ import annotations

from fake_encoder import FakeEncoder
from kbsearch.dedupe.rules import Embedded
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()


def embedded(record_id: str, title: str, text: str) -> Embedded:
    record = Record(id=record_id, kind=Kind.increment, title=title, text=text)
    return Embedded(record, ENCODER.encode(record.passages()))
