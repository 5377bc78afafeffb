"""An item is one item: a weaker learned match that the surer match's record is
a different item from yields; and with a judge, a claim a same-item record
says in other words is known by the judge's reading (rules.one_item,
rules.judge_claim)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import fake_config

from kbsearch.dedupe.claims import PassageHit, judge_claim
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded, compare_all, one_item
from kbsearch.dedupe.scorer import Scorer
from kbsearch.records import Kind, Record

# Same item exactly when the cosine reaches 0.5: the tests steer by the vectors.
BY_COSINE = Scorer(
    features=["cosine"], weights=[10.0], means=[0.5], scales=[1.0], bias=0.0, threshold=0.5, fitted_on="test"
)
CONFIG = fake_config().model_copy(update={"same_item": BY_COSINE})


def unit(*values: float) -> np.ndarray:
    vector = np.array([*values, *([0.0] * (64 - len(values)))], dtype=np.float32)
    return vector / np.linalg.norm(vector)


def embedded(record_id: str, vector: np.ndarray, **extra: object) -> Embedded:
    record = Record(id=record_id, kind=Kind.increment, title="", text=f"note {record_id}", **extra)  # type: ignore[arg-type]
    return Embedded(record, np.tile(vector, (len(record.passages()), 1)))


def common(_: str) -> int:
    return 50


def test_a_weaker_match_that_the_surer_match_is_a_different_item_from_yields() -> None:
    # The item is close to both known records (cosines 0.83 and 0.74), which are
    # far from each other (0.28): it can be only one of them.
    item = embedded("item", unit(1, 1, 0))
    surer, weaker = embedded("surer", unit(1, 0.2, 0)), embedded("weaker", unit(0.1, 1, 0.3))
    known = {k.record.id: k for k in (surer, weaker)}
    compared = compare_all(item, list(known.values()), CONFIG, common)
    assert all(m.same_item for m in compared)  # what the learned decision alone says
    kept = {m.id: m for m in one_item(compared, known, CONFIG, common)}
    assert kept["surer"].same_item and kept["surer"].rule is Rule.learned
    assert not kept["weaker"].same_item and kept["weaker"].rule is Rule.surer_match
    assert "surer" in kept["weaker"].reasons[-1]


def test_matches_that_agree_with_each_other_all_stay() -> None:
    item = embedded("item", unit(1, 1, 0))
    first, second = embedded("first", unit(1, 0.8, 0)), embedded("second", unit(0.8, 1, 0))
    known = {k.record.id: k for k in (first, second)}
    kept = one_item(compare_all(item, list(known.values()), CONFIG, common), known, CONFIG, common)
    assert all(m.same_item for m in kept)


def test_exact_evidence_is_never_overruled() -> None:
    item = embedded("item", unit(1, 1, 0), arxiv_ids=["2609.11111"])
    surer = embedded("surer", unit(1, 0.2, 0))
    by_id = embedded("by-id", unit(0.1, 1, 0.3), arxiv_ids=["2609.11111"])
    known = {k.record.id: k for k in (surer, by_id)}
    kept = {m.id: m for m in one_item(compare_all(item, list(known.values()), CONFIG, common), known, CONFIG, common)}
    assert kept["by-id"].same_item and kept["by-id"].rule is Rule.shared_id


def test_a_note_without_an_id_that_is_the_item_of_a_record_the_ids_set_apart_is_set_apart() -> None:
    """Probe 8: WebForge-RL, a method about its own arXiv id, was UPDATE of stephen's note on the
    WebForge benchmark (no id, 1.00), though spark's WebForge record, about the benchmark's id,
    was set apart by the ids; the note is WebForge's item, nearer it than the method."""
    item = embedded("method", unit(1, 1, 0), arxiv_ids=["2610.06789"])
    benchmark = embedded("benchmark", unit(1, 0.2, 0), arxiv_ids=["2610.02345"])
    retold = embedded("retold", unit(1, 0.4, 0))  # 0.92 to the method, 0.98 to the benchmark
    known = {k.record.id: k for k in (benchmark, retold)}
    compared = {m.id: m for m in compare_all(item, list(known.values()), CONFIG, common)}
    assert compared["retold"].same_item and compared["benchmark"].rule is Rule.different_ids
    kept = {m.id: m for m in one_item(list(compared.values()), known, CONFIG, common)}
    assert not kept["retold"].same_item and kept["retold"].rule is Rule.surer_match
    assert "the same item as benchmark" in kept["retold"].reasons[-1]
    assert "other arXiv ids" in kept["retold"].reasons[-1]
    # A note nearer the method than the benchmark is the method's, however sure the other reading.
    nearer = embedded("nearer", unit(1, 1.2, 0))
    known = {k.record.id: k for k in (benchmark, nearer)}
    kept = {m.id: m for m in one_item(compare_all(item, list(known.values()), CONFIG, common), known, CONFIG, common)}
    assert kept["nearer"].same_item and kept["nearer"].rule is Rule.learned


def test_the_judges_reading_makes_a_retold_claim_known() -> None:
    config = CONFIG.model_copy(update={"claim_known": BY_COSINE, "judge_claim_known": BY_COSINE})
    same = embedded("same", unit(1, 0, 0))
    claim_vector = unit(0, 1, 0)  # the index's model sees nothing alike (cosine 0)
    alone = judge_claim("一句复述", claim_vector, [], [same], config)
    judged = judge_claim("一句复述", claim_vector, [], [same], config, judged=[PassageHit(same, 0, 0.9)])
    assert not alone.known
    assert judged.known and judged.best_id == "same" and judged.score >= 0.5
    # Without a judge's claim decision in the config, the judge's hits are not read.
    ignored = judge_claim("一句复述", claim_vector, [], [same], CONFIG.model_copy(update={"claim_known": BY_COSINE}),
                          judged=[PassageHit(same, 0, 0.9)])  # fmt: skip
    assert not ignored.known


def test_a_judges_claim_decision_needs_a_judge() -> None:
    data = fake_config().model_dump()
    data.update(judge=None, judge_claim_known=BY_COSINE.model_dump())
    with pytest.raises(ValueError, match="judge_claim_known reads a judge model"):
        DedupeConfig.model_validate(data)


def test_of_matches_as_sure_the_one_the_others_agree_with_keeps_them() -> None:
    """Probe, 5 December: a round-up of two items matched a later repeat of one of them as
    surely as that item's own records (1.00 against 0.9994); as the surest it set them all
    apart, and check named the round-up first seen. Of matches about as sure, the one the
    others agree with is kept."""
    item = embedded("item", unit(1, 0, 0))
    own = embedded("own", unit(1, 0, 0))  # the item's own earlier record
    again = embedded("again", unit(1, 0.001, 0))  # another writer's record of it
    roundup = embedded("roundup", unit(1, 0, 0.1))  # a round-up: told apart from both below
    known = {k.record.id: k for k in (own, again, roundup)}
    compared = [m.model_copy(update={"probability": p}) for m, p in zip(
        compare_all(item, list(known.values()), CONFIG, common), (0.999, 0.998, 1.0), strict=True)]  # fmt: skip
    apart = BY_COSINE.model_copy(update={"means": [0.999]})  # the round-up is another item than each
    kept = {m.id: m for m in one_item(compared, known, CONFIG.model_copy(update={"same_item": apart}), common)}
    assert kept["own"].same_item and kept["again"].same_item, kept
    assert not kept["roundup"].same_item and kept["roundup"].rule is Rule.surer_match
    assert "the match kept (1.00; 1 of the 2 others voting agree with it)" in kept["roundup"].reasons[-1]


@pytest.mark.parametrize("own_p, report_p", [(1.0, 0.997), (0.997, 1.0)])
def test_a_weaker_match_siding_with_a_rival_does_not_drop_the_nearer_as_sure_match(
    own_p: float, report_p: float
) -> None:
    """Probe 31: an English note on a tool's point release matched that release's Chinese
    record (1.00, the nearest) and a score report run with the tool (0.997, far off); a
    second score report (0.91) sided with the first report, and by that vote the release's
    own record was dropped. Only matches as sure vote; between them the nearer is kept,
    whichever is surer by a saturated few thousandths."""
    item = embedded("item", unit(1, 1, 0))
    own = embedded("own", unit(1, 0.3, 0))  # cosine 0.88 to the item
    report = embedded("report", unit(0, 1, 0.3))  # 0.68; a different item from own (0.28)
    second = embedded("second", unit(0, 1, 0.6))  # 0.61; the same item as report (0.97), not own
    known = {k.record.id: k for k in (own, report, second)}
    compared = [m.model_copy(update={"probability": p}) for m, p in zip(
        compare_all(item, list(known.values()), CONFIG, common), (own_p, report_p, 0.91), strict=True)]  # fmt: skip
    assert all(m.same_item for m in compared)
    kept = {m.id: m for m in one_item(compared, known, CONFIG, common)}
    assert kept["own"].same_item and kept["own"].rule is Rule.learned, kept
    for other in ("report", "second"):
        assert not kept[other].same_item and kept[other].rule is Rule.surer_match
        kept_as = f"the match kept (as sure, {own_p:.2f}, and nearer than report: cosine 0.88 against 0.68)"
        assert kept[other].reasons[-1].startswith(f"a different item from own, {kept_as}"), kept[other].reasons


def test_a_weaker_match_tied_by_an_id_to_an_as_sure_one_votes_for_it() -> None:
    """Probe 31's audit: a re-run score note matched a note on the benchmark's next version
    (1.00, nearer) and the report's later version (about as sure); the report's first version,
    weaker (0.91) but about the same arXiv id as its later one, sides with it by exact evidence."""
    item = embedded("item", unit(1, 1, 0))
    rival = embedded("rival", unit(1, 0.3, 0), arxiv_ids=["2610.00002"])  # cosine 0.88, another paper
    own = embedded("own", unit(0, 1, 0.3), arxiv_ids=["2610.00001"])  # 0.68
    earlier = embedded("earlier", unit(0, 1, 0.6), arxiv_ids=["2610.00001"])  # 0.61, own's paper
    known = {k.record.id: k for k in (rival, own, earlier)}
    compared = [m.model_copy(update={"probability": p}) for m, p in zip(
        compare_all(item, list(known.values()), CONFIG, common), (1.0, 0.997, 0.91), strict=True)]  # fmt: skip
    kept = {m.id: m for m in one_item(compared, known, CONFIG, common)}
    assert kept["own"].same_item and kept["earlier"].same_item, kept
    assert not kept["rival"].same_item and kept["rival"].rule is Rule.surer_match
    assert "the match kept (1.00; 1 of the 2 others voting agree with it)" in kept["rival"].reasons[-1]


def test_of_two_as_sure_matches_about_as_near_the_surer_is_kept() -> None:
    """Dev replay (xling, 6 December): an English item matched its own paper's Chinese record
    (1.00) and another paper's (0.9955), told apart from each other; the other paper's came a
    few thousandths nearer, was kept by that alone, and the item's new result was called known
    from it. Only a clearly nearer match (``as_sure.NEARER``) outranks a surer one."""
    item = embedded("item", unit(1, 1, 0))
    own = embedded("own", unit(1, 0.2, 0.6))  # cosine 0.717 to the item
    other = embedded("other", unit(0.25, 1, -0.6))  # 0.741: nearer by 0.024; 0.06 to own
    known = {k.record.id: k for k in (own, other)}
    compared = [m.model_copy(update={"probability": p}) for m, p in zip(
        compare_all(item, list(known.values()), CONFIG, common), (1.0, 0.9955), strict=True)]  # fmt: skip
    assert all(m.same_item for m in compared)
    kept = {m.id: m for m in one_item(compared, known, CONFIG, common)}
    assert kept["own"].same_item and kept["own"].rule is Rule.learned, kept
    assert not kept["other"].same_item and kept["other"].rule is Rule.surer_match
    assert "the match kept (surer than other, 1.0000 against 0.9955, as near" in kept["other"].reasons[-1]
