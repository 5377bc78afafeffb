"""The cheap guards in front of two costly readings of a record's text give what the
full reading gives, and skip it where it can find nothing: a warm served check reads
every new candidate's text, and these two took about 0.16 ms a record."""

from __future__ import annotations

import re

import pytest

from kbsearch.dedupe import named_systems
from kbsearch.dedupe.features import latin_names
from kbsearch.text import textsim
from kbsearch.text.anchors import has_earlier_day_note

NO_DIGITS = [
    "论文提出了一种新任务ReaMOT，基于推理的多目标跟踪，并构建了ReaMOT Challenge基准数据集。",
    "What Changed? Detecting and Evaluating Instruction-Guided Image Edits",
    "",
]


class Counting:
    """A compiled pattern that counts the texts it is asked to scan."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.scanned = pattern, 0

    def finditer(self, text: str) -> object:
        self.scanned += 1
        return self.pattern.finditer(text)


@pytest.mark.parametrize("text", NO_DIGITS)
def test_a_text_without_a_digit_is_not_scanned_for_numbers(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def never(text: str) -> tuple[str, set[str]]:
        raise AssertionError(f"widths read a text without a digit: {text!r}")

    monkeypatch.setattr(textsim, "widths", never)
    assert textsim.numbers(text) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("吞吐提升三倍，显存减少 40%", {"3x", "40%"}),  # a figure in words becomes digits first
        ("tenfold faster decoding", {"10x"}),
        ("INT4 权重量化", {"4bit"}),
        ("１０ 倍加速", {"１０x"}),  # a full-width digit is a digit to every pattern (read as written)
    ],
)
def test_numbers_still_reads_figures_in_words_and_widths(text: str, expected: set[str]) -> None:
    assert textsim.numbers(text) == expected


def test_a_text_without_an_anchor_note_is_not_scanned_for_citations(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = Counting(named_systems._CITED)
    monkeypatch.setattr(named_systems, "_CITED", counting)
    assert named_systems.cited_names("Unlike DuoCache, SpillKV quantizes nothing.", latin_names) == {"duocache"}
    assert counting.scanned == 0
    cited = named_systems.cited_names("与 TriAttention（9-17 锚定）叠加，FreqPrune 再省显存", latin_names)
    assert cited == {"triattention"}
    assert counting.scanned == 1


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("TriAttention（9-17 锚定）", True),
        ("ExpertFlow (jay 9-22 已锚定)", True),
        ("C²KV（8月28日 记）", True),
        ("9-17 发布", False),
        ("（2025 年发布）", False),
        ("no note at all", False),
    ],
)
def test_has_earlier_day_note(text: str, held: bool) -> None:
    assert has_earlier_day_note(text) is held
