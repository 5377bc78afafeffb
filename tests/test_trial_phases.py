"""A trial's phase read as a fact (``text.trial_phases``): one phase written two ways is the
same, a later phase reached is news; and its numeral is no figure (``number_labels``)."""

from __future__ import annotations

import pytest

from kbsearch.text.stages import moved_on, told
from kbsearch.text.textsim import substantive_numbers

READOUT = "Readout: the Phase 2b study of VX-310 met its endpoint in 212 patients; lesion volume fell 41%"


@pytest.mark.parametrize(
    "claim",
    [
        "IIb 期顶线：212 名患者，病灶体积比安慰剂少 41%",
        "Ph2b data: 212 patients, lesion volume down 41%",
        "VX-310 的 II 期顶线：212 名患者",  # the phase without its part is the phase
        "Background: Phase 1 in 36 healthy volunteers raised no safety signal",  # an earlier phase
    ],
)
def test_one_phase_written_otherwise_moves_nothing_on(claim: str) -> None:
    assert moved_on(claim, READOUT) is None
    assert told(claim, READOUT)


@pytest.mark.parametrize(
    ("claim", "move"),
    [
        ("VX-310 进入 III 期临床，首批患者已给药", "phase 2b → phase 3"),
        ("VX-310 plans to start Phase 3 in 2028", "phase 2b → planned phase 3"),
    ],
)
def test_a_later_phase_moves_the_item_on(claim: str, move: str) -> None:
    assert moved_on(claim, READOUT) == move
    assert not told(claim, READOUT)


def test_a_planned_phase_then_started_moves_on() -> None:
    planned = "VX-310 计划 2027 年启动 II 期，I 期已在 36 名健康志愿者中完成"
    assert moved_on("VX-310 的 Phase 2 已完成首例患者给药", planned) == "planned phase 2 → phase 2"


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        ("In phase 2 the model is fine-tuned on 10k dialogues", "In phase 1 the model is pretrained on web text"),
        ("二期工程已于 6 月完工", "一期工程于 2025 年完成"),
        ("第 3 期节目上线", "第 2 期节目讲了推理引擎"),
    ],
)
def test_a_phase_of_no_trial_is_no_stage(claim: str, passage: str) -> None:
    assert moved_on(claim, passage) is None


@pytest.mark.parametrize(
    "text",
    ["enters Phase 1b with 40 patients", "进入 1b 期，入组 40 人", "Ph1b cohort: 40 patients", "IIb 期入组 40 人"],
)
def test_a_phase_numeral_is_no_figure(text: str) -> None:
    """The 1b of "Phase 1b" was read as 1 billion, a new figure against "Ib 期"."""
    assert substantive_numbers(text) == {"40"}


def test_a_figure_after_the_word_phase_stays_a_figure() -> None:
    assert "3x" in substantive_numbers("the two-phase 3x speed-up holds")
