"""A preview (research preview, beta, release candidate, 公测, 候选版) is a stage below general
availability (``stages.Stage.PREVIEW``): a claim that takes its item out of a preview to GA or
final is news, though it shares nearly every word with the record that told the preview.

Probe 27, 6 December: "Drover 结束研究预览，进入正式版（GA）" was known at 0.35 from stephen's
"Northwind AI launches Drover, a browser agent (research preview)", and "the spec is final, no
longer a release candidate" at 1.00 from the RC's record: each update dropped as a DUPLICATE.
The stage words knew neither preview, and "launches"/"发布" read the preview as released."""

from __future__ import annotations

import pytest
from test_claim_said import ALWAYS, record, said

from kbsearch.text.stages import Stage, moved_on, stage_said, told, untold

KESTREL = "Kestrel, a coding agent from Harbor Labs, opens as a research preview"
KESTREL_ZH = "Harbor Labs 发布编程 Agent Kestrel，目前处于公测阶段，仅对团队版开放"
SPEC = "Toolwire protocol 3.0 release candidate adds streaming tool results"


@pytest.mark.parametrize(
    ("text", "stage", "reached"),
    [
        (KESTREL, Stage.PREVIEW, True),
        ("The SDK is in public beta", Stage.PREVIEW, True),
        ("Toolwire 3.0 的候选版加入了流式工具结果", Stage.PREVIEW, True),
        ("vLLM 0.30.0rc1 is out", Stage.PREVIEW, True),
        # A text telling a preview reads its looser release words as that preview.
        (KESTREL_ZH, Stage.PREVIEW, True),
        ("Harbor Labs released Kestrel in beta", Stage.PREVIEW, True),
        ("Kestrel 结束公测，进入正式版", Stage.RELEASED, True),
        ("Kestrel is now generally available", Stage.RELEASED, True),
        ("The Toolwire 3.0 spec is final", Stage.RELEASED, True),
    ],
)
def test_a_preview_is_read_below_general_availability(text: str, stage: Stage, reached: bool) -> None:
    said = stage_said(text)
    assert said is not None and (said.stage, said.reached) == (stage, reached)


@pytest.mark.parametrize(
    ("claim_text", "passage"),
    [
        ("Kestrel 结束研究预览，进入正式版（GA）", KESTREL),
        ("Kestrel is generally available, no longer a research preview", KESTREL_ZH),
        ("Toolwire 3.0 is final, no longer a release candidate", SPEC),
        ("Toolwire 3.0 正式发布，不再是候选版", SPEC),
    ],
)
def test_leaving_a_preview_for_ga_or_final_moves_the_item_on(claim_text: str, passage: str) -> None:
    assert moved_on(claim_text, passage) == "preview → released"
    assert not told(claim_text, passage)


@pytest.mark.parametrize(
    ("claim_text", "passage"),
    [
        ("Kestrel 仍处于研究预览阶段", KESTREL),  # the same stage, restated
        ("Harbor Labs 发布了 Kestrel", KESTREL),  # a launch in looser words: the preview's own
        ("Harbor Labs launched Kestrel as a research preview", KESTREL_ZH),
        ("Kestrel 已正式发布", "Kestrel 已正式发布，面向所有用户开放"),  # GA on record already
    ],
)
def test_a_restated_preview_or_its_launch_moves_nothing_on(claim_text: str, passage: str) -> None:
    assert moved_on(claim_text, passage) is None
    assert told(claim_text, passage)


def test_a_product_leaving_its_research_preview_is_new_against_the_preview_record() -> None:
    """The form says the record says the claim (``ALWAYS``), as it did for the probe's Drover."""
    preview = record("stephen", KESTREL, "Research preview, US only, Pro subscribers")
    status = said("Kestrel 结束研究预览，进入正式版（GA）", preview, same={"stephen"}, shape=ALWAYS)
    assert not status.known and status.moved_on == "preview → released"  # type: ignore[attr-defined]


def test_a_spec_final_after_its_release_candidate_is_new() -> None:
    rc = record("stephen", SPEC, "Final release planned for 3 December after a two-week RC window")
    status = said("The Toolwire 3.0 spec is final, no longer a release candidate", rc, same={"stephen"}, shape=ALWAYS)
    assert not status.known and status.moved_on == "preview → released"  # type: ignore[attr-defined]


def test_a_restatement_of_the_preview_stays_known() -> None:
    preview = record("stephen", KESTREL, "Research preview, US only, Pro subscribers")
    status = said("Harbor Labs 推出编程 Agent Kestrel（研究预览）", preview, same={"stephen"}, shape=ALWAYS)
    assert status.known and status.moved_on is None  # type: ignore[attr-defined]


def test_a_preview_launch_told_by_a_record_in_loose_release_words_is_no_untold_stage() -> None:
    """A record's "launches Kestrel" tells the launch a claim's "发布…研究预览" restates, as it would a release."""
    launch = ["Harbor Labs launches Kestrel, a coding agent"]
    assert untold("Harbor Labs 发布编程 Agent Kestrel 研究预览", launch) is None
    assert untold("Kestrel enters public beta", ["Kestrel ranks first on a benchmark"]) == "unstated → preview"
