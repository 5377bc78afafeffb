"""A named value or a rank a claim says its item switched to is news when no record of the item
writes it (probe 34: a licence changed "由 A 改为 Apache-2.0" and a rank "4th → 6th" were known from
the record that gave the old licence and rank), and a figure "corrected from A to B" is a correction.
The texts here are this file's own."""

from __future__ import annotations

import pytest
from test_claim_said import ALWAYS, record, said

from kbsearch.dedupe.agreeing import stage_moved
from kbsearch.text.stages import moved_on
from kbsearch.text.switches import switched

OLD_LICENCE = "许可：Corvid Research License，商用需另行申请"


@pytest.mark.parametrize(
    ("claim", "passage", "move"),
    [
        ("许可由 Corvid Research License 改为 MIT，商用不再受限", OLD_LICENCE, "Corvid Research License → MIT"),
        ("Licence changed from the Corvid Research License to MIT", "Licence: Corvid Research License", "the Corvid"),
        ("Serving now switches to SGLang as the default backend", "默认后端为 vLLM", "→ SGLang"),
        ("默认后端改用 SGLang", "Default backend: vLLM", "→ SGLang"),
        ("Its place on the board slips from 2nd to 5th", "榜单总排名第 2", "2nd → 5th"),
        ("总排名由第 2 降至第 5", "Ranked 2nd overall", "第 2 → 第 5"),
        # a replacement told new value first (probe 38)
        ("Licence: now MIT, replacing the Corvid research licence", OLD_LICENCE, "the Corvid research licence → MIT"),
        (
            "SGLang replaces vLLM as the default backend",
            "Default backend: vLLM",
            "vLLM as the default backend → SGLang",
        ),
        ("The cache is stored in FP8 instead of BF16", "KV cache in BF16", "BF16 → FP8"),
        ("vLLM was replaced by SGLang as the default", "Default backend: vLLM", "vLLM → SGLang"),
        ("默认后端以 SGLang 取代 vLLM", "默认后端为 vLLM", "vLLM → SGLang"),
        ("默认后端 vLLM 被 SGLang 取代", "默认后端为 vLLM", "vLLM → SGLang"),
        ("许可替换为 MIT", OLD_LICENCE, "→ MIT"),
    ],
)
def test_a_switch_to_a_value_the_records_never_write_is_news(claim: str, passage: str, move: str) -> None:
    found = switched(claim, passage, [passage])
    assert found is not None and found.startswith(move)
    assert stage_moved(claim, passage, [passage]) == found  # what the claim decisions read


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        ("许可由 Corvid Research License 改为 MIT", "Licence moves to MIT from today"),  # told already
        ("Licence changed from the Corvid licence to MIT", "许可改为 MIT"),  # in the other language
        ("总排名由第 2 降至第 5", "Falls to 5th overall after the rescoring"),
        ("Latency changed from 40 ms to 31 ms", "Latency 40 ms"),  # a figure: quantities reads it
        ("The router switches to a learned gate when load is high", "Routing is rule based"),  # words only
        ("Moved from the old cluster to the new one", "Runs on the old cluster"),
        ("Licence: now MIT, replacing the Corvid licence", "Corvid-9B is relicensed to MIT"),  # told already
        ("It replaces the old router with a learned gate", "Routing is rule based"),  # no name for the new value
    ],
)
def test_a_stated_value_a_figure_or_plain_words_are_no_switch(claim: str, passage: str) -> None:
    assert switched(claim, passage, [passage]) is None


def test_the_claim_decision_calls_a_switched_licence_new_until_a_record_states_it() -> None:
    claim = "许可由 Corvid Research License 改为 MIT，商用不再受限"
    first = record("tom", "corvid-9b", OLD_LICENCE)
    alone = said(claim, first, same={"tom"}, shape=ALWAYS)
    assert not alone.known and (alone.moved_on or "").startswith("Corvid Research License → MIT")  # type: ignore[attr-defined]
    later = record("jay", "corvid-9b licence", "Corvid-9B relicensed to MIT")
    both = said(claim, first, later, same={"tom", "jay"}, shape=ALWAYS)
    assert both.known  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "claim", ["Score corrected from 812 to 794 after a rescoring", "Throughput revised down from 3.1x to 2.6x"]
)
def test_a_figure_corrected_from_one_value_to_another_is_a_correction(claim: str) -> None:
    assert moved_on(claim, "The board puts its score between 780 and 820") == "reported → corrected"
    assert moved_on(claim, "Score corrected to 794 after the rescoring") is None  # told as a correction


@pytest.mark.parametrize(
    "claim",
    ["The model self-corrected from 3 wrong drafts to a right one", "Errors are corrected from the draft to the end"],
)
def test_corrected_in_a_method_is_no_correction(claim: str) -> None:
    assert moved_on(claim, "The model drafts and checks its answers") is None
