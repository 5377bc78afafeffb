"""A range's magnitude suffix is carried back only when the pair reads as one range (``text.ranges``).

Probe 38: "grows from 600 to 8k tokens" read as {600k, 8k}: the k of the second number was
carried back onto the first, so the record "said" 600k and never 600, and a repeat giving
"600 tokens" was an UPDATE with a new number. A bare first number that is ten times the
second or more is a count of its own; a range written with one suffix keeps it."""

from __future__ import annotations

import pytest

from kbsearch.text.quantities import unstated
from kbsearch.text.ranges import shares_magnitude
from kbsearch.text.textsim import numbers


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        ("the rollout budget rises from 500 to 4k tokens", {"500", "4k"}),
        ("episode length went 300 to 2K steps", {"300", "2k"}),
        ("batch grew from 900 to 1.5k prompts", {"900", "1.5k"}),
        ("样本数从 400 增加到 6 万", {"400", "60k"}),
        ("样本从 400 到 6 万条", {"400", "60k"}),
        ("40 to 2k rollouts", {"40", "2k"}),
    ],
)
def test_a_bare_first_number_far_above_the_second_keeps_its_own_value(text: str, figures: set[str]) -> None:
    assert numbers(text) == figures


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        ("models from 7 to 70B parameters", {"7b", "70b"}),
        ("3 to 5B", {"3b", "5b"}),
        ("2-4k tokens", {"2k", "4k"}),
        ("从 3 到 5 万", {"30k", "50k"}),
        ("1.5 to 2T tokens", {"1.5t", "2t"}),
        ("32 to 128k context", {"32k", "128k"}),
        ("spend cut from 10 to 6 billion", {"10b", "6b"}),  # a descent within one order of magnitude
        ("26-30% of the budget", {"26%", "30%"}),  # not a magnitude: carried whatever the figures
        ("from 600 to 800 ms", {"600ms", "800ms"}),
    ],
)
def test_a_range_written_with_one_suffix_still_shares_it(text: str, figures: set[str]) -> None:
    assert numbers(text) == figures


def test_a_repeat_giving_the_bare_count_states_nothing_new() -> None:
    known = numbers("The curriculum grows responses from 500 to 4k tokens over training")
    assert unstated(numbers("Responses start at 500 tokens"), known) == set()


def test_shares_magnitude_reads_the_pair() -> None:
    assert shares_magnitude("3", "5") and shares_magnitude("1,500", "2,000") and shares_magnitude("10", "6")
    assert not shares_magnitude("600", "8") and not shares_magnitude("40", "2")
