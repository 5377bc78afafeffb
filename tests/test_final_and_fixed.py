"""A release candidate's item moves on when it is released as final, and a known issue's when it
is fixed, in the ordinary words writers use (probe 32): "released as final" read as a release
without its GA word, so it restated the RC's record, and a fix of what the record called a
"known issue" was known from that very key point. A done step told twice stays one step."""

from __future__ import annotations

import pytest
from test_claim_said import ALWAYS, record, said

from kbsearch.dedupe.agreeing import agrees, stage_moved
from kbsearch.text.fixes import FIXED, fix_moved
from kbsearch.text.stages import moved_on, told

RC = "Tarnwell 2.0.0-rc2 freezes the plugin API; the final release is expected after a month of soak testing"
RC_ZH = "Tarnwell 2.0 候选版冻结插件接口，浸泡测试一个月"
ISSUE = "Known issue in rc2: a cancelled run can leave stray worker threads behind"
ISSUE_ZH = "rc2 已知问题：取消运行后可能残留工作线程"


@pytest.mark.parametrize(
    "claim",
    [
        "Tarnwell 2.0.0 is released as final, a month after rc2",
        "Tarnwell 2.0.0 final is out",
        "Tarnwell 2.0 GA is out",
        "Tarnwell 2.0 was released as stable this morning",
        "Tarnwell 2.0.0 stable released",
        "Tarnwell 2.0 正式版发布",
        "Tarnwell 发布 2.0 稳定版",
    ],
)
def test_a_release_as_final_moves_a_release_candidate_on(claim: str) -> None:
    for passage in (RC, RC_ZH):
        assert moved_on(claim, passage) == "preview → released"
        assert not told(claim, passage)


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        ("Tarnwell 2.0 GA is out", "Tarnwell 2.0.0 final released"),  # one done step in two wordings
        ("Tarnwell 2.0.0 is released as final", "Tarnwell 2.0 正式版发布"),
        ("Tarnwell 2.0 稳定版发布", "Tarnwell 2.0 is generally available"),
        ("Tarnwell 2.0 is released", RC),  # no GA word: the RC's own launch, as before
    ],
)
def test_a_final_release_told_again_moves_nothing_on(claim: str, passage: str) -> None:
    assert moved_on(claim, passage) is None


@pytest.mark.parametrize(
    "claim",
    [
        "The rc2 issue of stray worker threads after cancelling is fixed in 2.0",
        "The stray-thread bug is resolved in the final release",
        "2.0 patched the stray worker thread issue",
        "2.0 修复了 rc2 中取消运行后残留工作线程的问题",
        "rc2 的已知问题已修复",
    ],
)
def test_a_fix_of_a_known_issue_moves_its_item_on(claim: str) -> None:
    for passage in (ISSUE, ISSUE_ZH):
        assert fix_moved(claim, passage) == FIXED
        assert stage_moved(claim, passage, [passage]) == FIXED


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        ("The stray thread issue will be fixed in rc3", ISSUE),  # a fix to come
        ("The stray thread issue is not fixed yet", ISSUE),
        ("残留线程的问题尚未修复", ISSUE_ZH),
        ("该问题仍未被修复", ISSUE_ZH),
        ("The stray-thread bug is resolved in 2.0", "The rc2 bug leaving stray threads was fixed in rc3"),  # told
        ("The stray-thread bug is resolved in 2.0", "Cancelling a run now frees its worker threads"),  # no issue told
        ("Ridge regression in the probe is fixed to one layer", "a linear regression in the probe reads layer 12"),
    ],
)
def test_no_move_for_a_fix_to_come_one_on_record_or_no_open_issue(claim: str, passage: str) -> None:
    assert fix_moved(claim, passage) is None


def test_a_passage_silent_on_the_fix_does_not_stand_in_for_the_issue_it_contradicts() -> None:
    figures: tuple[set[str], set[str], set[str]] = (set(), set(), set())
    claim = "The stray thread issue is fixed in 2.0"
    assert not agrees(claim, "Each worker thread is pooled per run", figures, ISSUE)
    assert agrees(claim, "2.0 fixes the stray thread issue", figures, ISSUE)


def test_a_final_release_of_a_release_candidate_is_new_against_its_record() -> None:
    """The form says the record says the claims (``ALWAYS``), as it did for the probe's RC."""
    rc = record("rook", "Tarnwell 2.0.0-rc2: release candidate", RC, ISSUE)
    final = said("Tarnwell 2.0.0 is released as final", rc, same={"rook"}, shape=ALWAYS)
    assert not final.known and final.moved_on == "preview → released"  # type: ignore[attr-defined]
    fixed = said("The rc2 issue of stray worker threads is fixed in 2.0", rc, same={"rook"}, shape=ALWAYS)
    assert not fixed.known and fixed.moved_on == FIXED  # type: ignore[attr-defined]
    again = said("Durable runs: each step is persisted and replayed", rc, same={"rook"}, shape=ALWAYS)
    assert again.known  # type: ignore[attr-defined]
