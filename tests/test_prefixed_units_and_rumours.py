"""Probe 33's three misses, as general rules: a figure with an SI prefix is one figure in any
prefix (2400 TFLOPS = 2.4 PFLOPS), "raises" is funding only with money or a round after it,
and an official confirmation of what a record told as a rumour is a later stage of the item."""

from __future__ import annotations

import pytest
from test_claim_said import ALWAYS, record, said

from kbsearch.dedupe.agreeing import agrees, stage_moved
from kbsearch.dedupe.subjects import event_kinds, events_differ, title_subject
from kbsearch.text.quantities import new_figures
from kbsearch.text.rumours import CONFIRMED, rumour_moved
from kbsearch.text.textsim import numbers, substantive_numbers


@pytest.mark.parametrize(
    ("one", "other", "spelled"),
    [
        ("BF16 dense throughput 1800 TFLOPS", "稠密算力 1.8 PFLOPS", "1.8pflops"),
        ("the cluster peaks at 0.9 exaflops", "峰值 900 PFLOPS", "900pflops"),
        ("an NPU rated at 45 TOPS", "rated 45000 GOPS", "45tops"),
        ("cores boost to 3.1 GHz", "主频 3100 MHz", "3.1ghz"),
        ("each port runs 800 Gbps", "800 Gb/s per port", "800gbps"),
        ("scale-out fabric of 1.6 Tb/s", "1600 Gbps of scale-out", "1.6tbps"),
        ("a 2 PB cache tier", "2000 TB of flash", "2pb"),
        ("a 512 MB SRAM", "0.512 GB of SRAM", "512mb"),
    ],
)
def test_one_figure_in_two_si_prefixes_is_one_figure(one: str, other: str, spelled: str) -> None:
    assert substantive_numbers(one) == substantive_numbers(other) == {spelled}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("HBM bandwidth 3.2 TB/s", {"3.2tb"}),  # a big B is a byte: no bit rate
        ("a 24 Gb GDDR7 die", {"24gb"}),  # a die's density, no rate
        ("the model tops 5 tops", {"5"}),  # "tops" in small letters is a word
        ("10 mW idle", {"10"}),
    ],
)
def test_bytes_words_and_unprefixed_figures_read_as_before(text: str, expected: set[str]) -> None:
    assert numbers(text) == expected


def test_a_changed_prefixed_figure_stays_news_and_a_restated_one_is_none() -> None:
    stated = numbers("FP8 dense 2.4 PFLOPS, 141 GB HBM3E")
    assert new_figures(substantive_numbers("FP8 稠密算力 2400 TFLOPS"), stated) == []
    assert new_figures(substantive_numbers("FP8 dense 2600 TFLOPS"), stated) == ["2.6pflops"]
    assert substantive_numbers("1.2 TB/s") != substantive_numbers("1.2 Tb/s")  # bytes are no bits


@pytest.mark.parametrize(
    "title",
    [
        "Quorra raises $40M to build inference chips",
        "Quorra raised a $40M Series B",
        "Quorra raises fresh capital from two funds",
        "Quorra raises its seed round",
        "Quorra closes a $40M raise",
        "Quorra raises 40 million euros",
        "Quorra 完成 3 亿元 B 轮融资",
    ],
)
def test_raises_with_money_or_a_round_is_funding(title: str) -> None:
    assert "funding" in event_kinds(title)


@pytest.mark.parametrize(
    "title",
    [
        "Quorra Q7-Max refresh raises memory to 256 GB",
        "Quorra raises the per-account rate limit",
        "Quorra firmware raises sustained throughput by 12%",
    ],
)
def test_raises_a_spec_or_a_limit_is_no_funding(title: str) -> None:
    assert "funding" not in event_kinds(title)


def test_a_spec_refresh_is_not_set_apart_from_the_same_companys_launch() -> None:
    refresh, launch = "Quorra Q7-Max refresh raises memory to 256 GB", "Quorra launches the Q7 accelerator"
    assert events_differ((title_subject(refresh), refresh), (title_subject(launch), launch)) is None


RUMOUR = "传闻：Lumen Silicon 的首款推理芯片在 Harrow Fab 3nm 流片，官方未回应"
RUMOUR_EN = "Lumen Silicon's first inference chip reportedly taped out on Harrow Fab's 3nm node, sources say"


@pytest.mark.parametrize(
    "claim",
    [
        "Lumen Silicon confirmed the 3nm tape-out at Harrow Fab on Monday",
        "Lumen Silicon officially announced the chip's tape-out on Harrow's 3nm node",
        "Lumen Silicon 官宣首款推理芯片已在 Harrow Fab 3nm 流片",
        "Lumen Silicon 证实芯片已在 3nm 流片",
    ],
)
def test_a_confirmation_of_a_rumour_moves_its_item_on(claim: str) -> None:
    for passage in (RUMOUR, RUMOUR_EN):
        assert rumour_moved(claim, passage) == CONFIRMED
        assert stage_moved(claim, passage, [passage]) == CONFIRMED


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        ("Lumen Silicon has not confirmed the 3nm tape-out", RUMOUR_EN),  # no confirmation made
        ("Lumen Silicon 尚未证实流片消息", RUMOUR),
        ("Lumen Silicon confirmed the tape-out", "Lumen Silicon confirmed the 3nm tape-out, ending the rumours"),
        ("Ablations confirm the router helps long prompts", "The router is applied to every layer"),  # no rumour
        ("The chip is built on Harrow's 3nm node", RUMOUR_EN),  # restates the rumoured fact, confirms nothing
    ],
)
def test_no_move_without_a_confirmation_or_a_rumour(claim: str, passage: str) -> None:
    assert rumour_moved(claim, passage) is None


def test_a_passage_silent_on_the_confirmation_does_not_stand_in_for_the_rumour() -> None:
    figures: tuple[set[str], set[str], set[str]] = (set(), set(), set())
    claim = "Lumen Silicon confirmed the 3nm tape-out"
    assert not agrees(claim, "The chip has 8 HBM stacks", figures, RUMOUR_EN)
    assert agrees(claim, "Lumen Silicon confirmed the tape-out on 3nm", figures, RUMOUR_EN)


def test_a_confirmation_is_new_against_the_rumours_record() -> None:
    """The form says the record says the claims (``ALWAYS``), as it did for the probe's rumour."""
    rumour = record("orin", "传闻：Lumen Silicon 3nm 流片", RUMOUR, "传闻称芯片配 6 颗 HBM4")
    confirmed = said("Lumen Silicon confirmed the 3nm tape-out officially", rumour, same={"orin"}, shape=ALWAYS)
    assert not confirmed.known and confirmed.moved_on == CONFIRMED  # type: ignore[attr-defined]
    again = said("Lumen Silicon's first chip is on Harrow's 3nm node", rumour, same={"orin"}, shape=ALWAYS)
    assert again.known  # type: ignore[attr-defined]
