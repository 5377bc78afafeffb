"""A coined name written with a slip (two letters swapped, a plural s) is the same name to the
named-systems rule (``text.misspelled``); a name one letter apart is another system."""

from __future__ import annotations

import random

import pytest
from conftest import fake_config
from support.embedded import embedded

from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import compare
from kbsearch.text.misspelled import one_name, spelled_as

CONFIG = fake_config()
HICACHE = "SGLang {name} keeps KV on local NVMe SSD as a third tier; prefix hit rate rises from 41% to 73%."


def rare(name: str) -> int:
    return 1


@pytest.mark.parametrize(("a", "b"), [("hicache", "hicahce"), ("rosguard", "rosgaurd"), ("videollm", "videollms")])
def test_a_swap_or_a_plural_is_one_name(a: str, b: str) -> None:
    assert one_name(a, b) and one_name(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [("flashmla", "flashvla"), ("minirag", "mindrag"), ("chexbert", "chexpert"), ("kivi", "kiwi"), ("qwen2", "qwen3")],
)
def test_a_changed_letter_a_short_name_or_a_digit_is_another_name(a: str, b: str) -> None:
    assert not one_name(a, b)


def test_names_are_written_as_the_other_record_writes_them() -> None:
    assert spelled_as({"hicahce", "sglang"}, {"hicache"}) == {"hicache", "sglang"}


def test_spelled_as_finds_what_every_pair_compared_finds() -> None:
    """It compares only names within a letter of each other's length: the same answer, first
    match in ``other``'s order, as ``one_name`` asked of every pair (short names, digits,
    plurals, swaps, several spellings of one name)."""
    rng = random.Random(5)
    words = ["hicache", "hicahce", "hicaches", "rosguard", "rosgaurd", "qwen25", "kivi", "kiwi", "videollm"]
    words += ["videollms", "videlolm", "flashmla", "flashvla", "sglang", "sglangs", "abcdef", "bacdef", "abcdfe"]
    for _ in range(300):
        names, other = set(rng.sample(words, rng.randint(0, 6))), frozenset(rng.sample(words, rng.randint(0, 6)))
        every_pair = frozenset(next((o for o in other if one_name(n, o)), n) if n not in other else n for n in names)
        assert spelled_as(names, other) == every_pair


def test_a_typo_in_the_titles_system_name_leaves_a_repeat_to_the_learned_decision() -> None:
    """Probe 28: nova's near-verbatim repeat of "SGLang HiCache adds an SSD tier", with the name
    typed HiCahce, was NEW at cosine 0.92: "each title names what the other never mentions
    (hicahce / hicache)", against a learned score of 1.00."""
    known = embedded("jay", "SGLang HiCache adds an SSD tier", HICACHE.format(name="HiCache"))
    typo = embedded("nova", "SGLang HiCahce adds an SSD teir", HICACHE.format(name="HiCahce"))
    for a, b in ((typo, known), (known, typo)):
        match = compare(a, b, CONFIG, Neighbourhood(), rare)
        assert match.rule is not Rule.different_names, match.reasons


def test_a_name_one_letter_apart_still_sets_two_items_apart() -> None:
    flash = embedded("a", "FlashMLA decodes MLA faster", HICACHE.format(name="FlashMLA"))
    other = embedded("b", "FlashVLA decodes VLA faster", HICACHE.format(name="FlashVLA"))
    match = compare(flash, other, CONFIG, Neighbourhood(), rare)
    assert match.rule is Rule.different_names, match.reasons


def test_untitled_texts_naming_one_system_with_a_slip_are_not_set_apart() -> None:
    """The digests' rule (``texts_name_apart``): each text names only its own spelling."""
    alone = "{name} keeps the KV cache on local disks as a third tier; prefix hits rise from 41% to 73%."
    known = embedded("k", "", alone.format(name="HiCache"))
    typo = embedded("q", "", alone.format(name="HiCahce"))
    match = compare(typo, known, CONFIG, Neighbourhood(), rare)
    assert match.rule is not Rule.different_names, match.reasons
