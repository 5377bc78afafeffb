"""A title alone says no fact, not even of its own item's claims: the passages a claim is weighed
against are a same-item record's whole text and key points, never its title alone
(``Embedded.facts``), in the index's form, the judge's cosine form and ``claim_said``.

Probe 39: a correction's cause ("the script counted prompt tokens") was called known at the
judge's cosine 0.976 from the title of the release it corrects ("Engine 0.9.0 发布：…"), the
rule having held only for the nearest record of an item with no same-item record. The
fixtures here are written for these tests."""

from __future__ import annotations

from types import SimpleNamespace

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.check import Checker
from kbsearch.dedupe.claims import PassageHit, judge_claim
from kbsearch.dedupe.rules import Embedded
from kbsearch.records import Kind, Record

CONFIG = fake_config()
JUDGED = CONFIG.model_copy(update={"judge_claim_known": CONFIG.claim_known})
ENCODER = FakeEncoder()
TITLE = "Lanternfish 3.2 adds paged prefill and a block scheduler"
CLAIM = TITLE  # a claim worded as the record's title, which its text and key points never say


def release() -> Embedded:
    rec = Record(
        id="ivo/2026-12-01#2",
        kind=Kind.increment,
        title=TITLE,
        text=(
            "Maintainers publish wheels for three CUDA versions and drop Python 3.9; the old synchronous "
            "loop is gone, configuration files written for 3.1 load unchanged, the metrics endpoint "
            "moves under a new path, and the documentation site gains a migration guide with worked "
            "examples for operators running more than one replica behind a load balancer."
        ),
        claims=["Wheels for three CUDA versions", "The old sync loop is removed"],
    )
    return Embedded(rec, ENCODER.encode(rec.passages()))


def test_facts_leave_out_the_title_alone() -> None:
    known = release()
    indices = [i for i, _ in known.facts(known.vectors @ ENCODER.encode([CLAIM])[0])]
    assert known.passages.index(TITLE) not in indices
    assert len(indices) == len(known.passages) - 1


def test_a_same_item_title_does_not_make_a_claim_known() -> None:
    known = release()
    status = judge_claim(CLAIM, ENCODER.encode([CLAIM])[0], [], [known], CONFIG)
    assert not status.known
    assert status.best_text != TITLE
    # Nor its title found by the search over everything known (the nearest passages, ``hits``).
    searched = [PassageHit(known, known.passages.index(TITLE), 1.0)]
    assert not judge_claim(CLAIM, ENCODER.encode([CLAIM])[0], searched, [known], CONFIG).known


def test_the_judge_s_passages_leave_out_the_title_too() -> None:
    known = release()
    checker = SimpleNamespace(config=JUDGED, _judge_passages=lambda k: k.vectors)
    claims = ENCODER.encode([CLAIM])
    [hits] = Checker._judged_claims(checker, [CLAIM], claims, [known])  # type: ignore[arg-type]
    assert TITLE not in [h.known.passages[h.index] for h in hits]
    status = judge_claim(CLAIM, claims[0], [], [known], JUDGED, judged=hits)
    assert not status.known
