"""A count the records lack, beside a figure they state, is weighed as a count alone is
(``claim_numbers.counts_beside``): detail of a passage that surely says the claim, or of a key point
saying it; news when the passage only likely says it (a new total beside a shared count)."""

from __future__ import annotations

from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.dedupe.claims import PassageHit, PassageReader, judge_said
from kbsearch.dedupe.config import SAID_FEATURES
from kbsearch.dedupe.results import ClaimStatus
from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.scorer import Scorer
from kbsearch.records import Record

ENCODER = FakeEncoder()


def _form(bias: float) -> Scorer:
    names = list(SAID_FEATURES)
    return Scorer(
        features=names, weights=[0.0] * len(names), means=[0.0] * len(names), scales=[1.0] * len(names), bias=bias,
        threshold=0.1, fitted_on="hand-set for a test", score="none",
    )  # fmt: skip


SURE, LIKELY = _form(10.0), _form(-1.0)  # said surely; said (0.27 ≥ 0.1), not surely (< 0.5)


def _said(claim: str, title: str, *claims: str, form: Scorer) -> ClaimStatus:
    rec = Record(id="k", kind="increment", title=title, text="" if claims else title, claims=list(claims))
    known = Embedded(rec, ENCODER.encode(rec.passages()))
    vector = ENCODER.encode([claim])[0]
    hits = [PassageHit(known, i, float(v @ vector)) for i, v in enumerate(known.vectors)]
    return judge_said(claim, hits, {"k"}, PassageReader(None, FakeTokenEncoder({})), form)


SUMMARY = "the archive was withdrawn after 1,500,000 disputed pages were flagged"
CLAIM = "the archive returns without the 1,500,000 disputed pages, now holding 700B tokens"


def test_a_new_total_beside_a_shared_count_is_news_when_only_likely_said() -> None:
    status = _said(CLAIM, SUMMARY, form=LIKELY)
    assert not status.known and status.new_numbers == ["700b"]


def test_a_new_count_beside_a_shared_one_is_detail_of_a_sure_passage_or_a_key_point() -> None:
    sure = _said(CLAIM, SUMMARY, form=SURE)
    assert sure.known and sure.extra_numbers == ["700b"]
    # Another writer's key point of the same fact, with the total that one left out.
    restated = f"{SUMMARY} out of 700B tokens"
    key_point = _said(restated, "corpus note", SUMMARY, "maintainers answer takedown requests", form=LIKELY)
    assert key_point.known and key_point.extra_numbers == ["700b"]


def test_a_measured_result_beside_a_shared_figure_stays_detail_as_before() -> None:
    """Only counts are weighed so: a second result beside a stated one is detail (docs/dedupe.md)."""
    status = _said("the filter keeps 1,500,000 pages and cuts toxicity by 35%", SUMMARY, form=LIKELY)
    assert status.known and status.extra_numbers == ["35%"]
