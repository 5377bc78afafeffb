"""A key point that recalls another item as background ("背景：…", "Context: …", "as reported on
9-16", a cited earlier day's item) is no evidence that the item is that item (``dedupe.background``):
the item's other key points must carry a join (probe 46: a bounty joined the red-team report it
recalled, 1.00; a release joined the CVE advisory it recalled, 0.81)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import fake_config

from kbsearch.dedupe.background import background_points, is_background
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded, compare, decision_features
from kbsearch.dedupe.scorer import Scorer
from kbsearch.records import Kind, Record

TITLE = "Wrenfield opens a bounty for universal jailbreaks"


@pytest.mark.parametrize(
    ("point", "background"),
    [
        ("背景：Wrenfield-2 的安全评估给出的拒答率为 93%", True),
        ("Context: GHSA-1234 was in the upload handler", True),
        ("- Background: the three-year compute deal signed in March", True),
        ("As reported on 10-04, the cluster holds 4,096 accelerators", True),
        ("得分比 Pellam（48.2%，10-04锚定）高 6 分", True),  # cites another item's anchored figure
        ("Context: 64k-token context window", False),  # a context length, no recalled item
        ("Context window: 128k", False),
        ("Context-Relay 在长文档问答上提升 4 分", False),  # a name, no label
        ("For context - the lab raised $20M in May", True),
        ("Payouts reach $40,000 per finding", False),
        ("Correction: 1,200 roles are cut, not 900 as first reported", False),  # the item's own fix
        ("Wrenfield 吞吐升至 2.4 倍（10-04锚定为 1.9 倍）", False),  # its own earlier day: a retelling
    ],
)
def test_which_key_points_recall_another_item(point: str, background: bool) -> None:
    assert is_background(point, TITLE) is background


def test_a_record_of_background_points_only_keeps_them() -> None:
    """A re-listing of an anchored item says nothing else: its points are all it says."""
    points = ["背景：Wrenfield-2 的拒答率为 93%", "Context: the deal signed in March"]
    assert background_points(points, TITLE) == frozenset()
    assert background_points([*points, "Payouts reach $40,000"], TITLE) == frozenset(points)


# Hand-made unit vectors: what each passage is near, so that the features read are known (the
# whole texts alike: one lab, one topic).
AXES = {"bounty": 0, "payout": 1, "report": 2, "rate": 3, "whole": 4}


def unit(*axes: str) -> np.ndarray:
    v = np.zeros(8, dtype=np.float32)
    for a in axes:
        v[AXES[a]] = 1.0
    return v / np.linalg.norm(v)


def embedded(record_id: str, title: str, points: dict[str, np.ndarray], whole: np.ndarray) -> Embedded:
    record = Record(id=record_id, kind=Kind.increment, title=title, text="\n".join(points), claims=list(points))
    passages = record.passages()
    by_text = {title: whole, record.embed_text(): whole, **points}
    return Embedded(record, np.stack([by_text[p] for p in passages]), passages)


REPORT = embedded(
    "r",
    "Wrenfield-2 safety evaluation",
    {"Refusal rate on the harmful-request set: 93%": unit("rate"), "Run by 30 external testers": unit("report")},
    unit("whole"),
)
BOUNTY = embedded(
    "b",
    TITLE,
    {
        "Payouts reach $40,000 per universal jailbreak": unit("payout"),
        "Open to anyone who reproduces it on Wrenfield-2": unit("bounty"),
        "背景：Wrenfield-2 安全评估给出的拒答率为 93%": unit("rate"),  # the report's own point, recalled
    },
    unit("whole"),
)


def test_background_points_are_not_read_as_the_item_s_key_points() -> None:
    features = decision_features(BOUNTY, REPORT, Neighbourhood(), lambda name: 50)
    assert features["claims_covered"] < 0.5 and features["claims_back"] < 0.5  # 1.0 read with the background
    assert "93%" not in BOUNTY.numbers  # no figure the two share


# A decision that joins by the whole texts alone, and reads the key points as the fitted forms do.
JOINS_BY_WHOLE = Scorer(
    features=["cosine", "claims_covered", "claims_back"],
    weights=[10.0, 0.5, 0.5],
    means=[0.5, 0.45, 0.45],
    scales=[0.1, 0.1, 0.1],
    bias=0.0,
    threshold=0.55,
    fitted_on="test",
)


def test_a_join_resting_on_a_background_point_is_two_items() -> None:
    config = fake_config().model_copy(update={"claims_same_item": JOINS_BY_WHOLE, "aligned_claims_same_item": None})
    match = compare(BOUNTY, REPORT, config, Neighbourhood(), lambda name: 50)
    assert not match.same_item and match.rule is Rule.learned, match.reasons
    assert "background" in match.reasons[0]


def test_a_retelling_with_a_background_point_stays_joined() -> None:
    """An item whose own key points say the known record's facts again carries the join itself."""
    config = fake_config().model_copy(update={"claims_same_item": JOINS_BY_WHOLE, "aligned_claims_same_item": None})
    retold = embedded(
        "t",
        "Wrenfield-2 evaluation, retold",
        {
            "Refusal rate 93% on harmful requests": unit("rate"),
            "背景：Wrenfield-2 的安全评估由 30 名外部测试者完成": unit("report"),
        },
        unit("whole"),
    )
    assert compare(retold, REPORT, config, Neighbourhood(), lambda name: 50).same_item
