"""One increment as the rules compare it, embedded by the tiny fake encoder, and two records
compared as check compares them: the name-rule tests each wrote these helpers."""

from __future__ import annotations

from collections.abc import Callable

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded, compare
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()
CONFIG = fake_config()


def embedded(record_id: str, title: str, text: str) -> Embedded:
    record = Record(id=record_id, kind=Kind.increment, title=title, text=text)
    return Embedded(record, ENCODER.encode(record.passages()))


def judged(a: Record, b: Record, name_count: Callable[[str], int] = lambda name: 50) -> tuple[Rule, bool, str]:
    """The rule that decided whether ``b`` is ``a``'s item, the decision and its first reason, as
    check's comparison gives them (``name_count``: how many records hold a name; 50 makes every
    name common, 1 every name rare, as in a young index)."""
    pair = Embedded(a, ENCODER.encode(a.passages())), Embedded(b, ENCODER.encode(b.passages()))
    match = compare(*pair, CONFIG, Neighbourhood(), name_count)
    return match.rule, match.same_item, match.reasons[0]


def titled(rid: str, title: str, text: str, date: str = "2026-12-02") -> Record:
    """A titled increment record with no claims, as the name-rule tests write their two sides."""
    return Record(id=rid, kind=Kind.increment, date=date, title=title, text=text, claims=[])  # type: ignore[arg-type]


def judged_rare(a: Record, b: Record) -> tuple[Rule, bool, str]:
    """``judged`` with every name rare: a young index."""
    return judged(a, b, lambda name: 1)
