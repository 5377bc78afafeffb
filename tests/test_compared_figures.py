"""A figure a claim gives as another named system's, which a stored record about that system
states, is not the claim's new figure (probe 47: "66.7%，超过 <another model> 的 63.0%" was new
by 63.0% too). Own fixtures: grasping models, a reranker, a speech codec."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import fake_config
from test_claim_said import ALWAYS, TOKENS, hits, record

from fake_encoder import FakeEncoder
from kbsearch.dedupe.check import Checker
from kbsearch.dedupe.claims import PassageReader, judge_said
from kbsearch.dedupe.results import ClaimStatus
from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.their_figures import their_figures
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store
from kbsearch.text.attributed_figures import attributed_figures


@pytest.mark.parametrize(
    ("text", "theirs"),
    [
        ("抓取成功率 71.5%，超过 Brindle-Grasp v2 的 68.0%", [("Brindle-Grasp v2", {"68%"})]),
        ("对比 Tallow-R 的 41.5%，提升 6 个点", [("Tallow-R", {"41.5%"})]),
        ("比 Tallow-R 的召回率 41.5% 高 6 个点", [("Tallow-R", {"41.5%"})]),
        ("nDCG@10 of 0.612, above Tallow-R's 0.587", [("Tallow-R", {"0.587"})]),
        ("beats Tallow-R's reported score of 0.587", [("Tallow-R", {"0.587"})]),
        ("ViSQOL 3.9 vs. Ember Codec 2 (3.6)", [("Ember Codec 2", {"3.6"})]),
        # the figure may be the item's own: "with", "at"; no name: the item's own earlier version
        ("beats Tallow-R with 0.612", []),
        ("ranks first at 0.612, ahead of Tallow-R at 0.587", []),
        ("超过上一版的 68.0%", []),
    ],
)  # fmt: skip
def test_a_figure_given_as_a_named_systems_in_a_comparison_is_read_as_theirs(
    text: str, theirs: list[tuple[str, set[str]]]
) -> None:
    assert attributed_figures(text) == theirs


CLAIM = "新结果：PickSuite 真机抓取成功率 71.5%，超过 Brindle-Grasp v2 的 68.0%"
ITEM_TITLE = "Sorrel-2 抓取模型发布"
BRINDLE = record("ben#1", "Brindle-Grasp v2 — 68.0% on PickSuite", "Result: 68.0% grasp success on PickSuite")
SORREL = record("ada#1", "Sorrel-2: a grasping policy from Quarry Labs", "Model: 4B parameters")


def test_only_a_figure_a_record_about_that_system_states_is_theirs() -> None:
    assert their_figures(CLAIM, ITEM_TITLE, [BRINDLE, SORREL]) == {"68%"}
    assert their_figures(CLAIM, ITEM_TITLE, [SORREL]) == set()  # no record gives it for Brindle-Grasp v2
    other = record("ben#2", "Brindle-Grasp v2 — 64.2% on PickSuite", "Result: 64.2% on PickSuite")
    assert their_figures(CLAIM, ITEM_TITLE, [other]) == set()  # the records give it another figure
    # the item's own system, named in its title, is no other system
    assert their_figures(CLAIM, "Brindle-Grasp v2 更新：新结果", [BRINDLE]) == set()


def _said(claim: str, known: Embedded, theirs: frozenset[str] = frozenset()) -> ClaimStatus:
    return judge_said(claim, hits(known, claim), {"ada#1"}, PassageReader(None, TOKENS), ALWAYS, theirs=theirs)


def test_the_claim_decision_leaves_another_systems_figure_out_of_the_new_ones() -> None:
    status = _said(CLAIM, SORREL, their_figures(CLAIM, ITEM_TITLE, [BRINDLE]))
    assert not status.known and status.new_numbers == ["71.5%"]
    assert _said(CLAIM, SORREL).new_numbers == ["68%", "71.5%"]
    # a claim whose one figure the other system's record gives: said, and known
    compared = "新结果：PickSuite 上超过 Brindle-Grasp v2 的 68.0%"
    assert _said(compared, SORREL, their_figures(compared, ITEM_TITLE, [BRINDLE])).known
    assert not _said(compared, SORREL).known


def _increment(rid: str, title: str, claims: list[str], paper: str) -> Record:
    return Record(id=rid, kind=Kind.increment, title=title, text=title, claims=claims, arxiv_ids=[paper])


def test_check_reads_the_other_systems_record_among_the_candidates(tmp_path: Path) -> None:
    encoder = FakeEncoder()
    first = _increment("ada#1", "Sorrel-2: a grasping policy from Quarry Labs", ["Model: 4B parameters"], "2612.01001")
    rival = _increment(
        "ben#1", "Brindle-Grasp v2 — 68.0% on PickSuite", ["Result: 68.0% grasp success on PickSuite"], "2611.02002"
    )
    store = Store.open(tmp_path / "idx", create=True)
    ingest_records(store, ChangeSet(upserts=[first, rival]), model="fake", load_encoder=lambda: encoder)
    probe = _increment("ada#2", "Sorrel-2 抓取模型真机结果", ["模型：40 亿参数", CLAIM], "2612.01001")
    [item] = Checker(store, encoder, fake_config()).check([probe], file=None, input_name="probe").items
    assert [m.id for m in item.matches if m.same_item] == ["ada#1"]
    assert item.claims[1].new_numbers == ["71.5%"], item.claims[1]
    unknown = probe.model_copy(update={"claims": [CLAIM.replace("Brindle-Grasp v2", "Rook-3")]})
    [alone] = Checker(store, encoder, fake_config()).check([unknown], file=None, input_name="probe").items
    assert alone.claims[0].new_numbers == ["68%", "71.5%"]  # no record about Rook-3: the claim's to tell
