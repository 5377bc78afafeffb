"""How e5's texts are cut into session runs (``e5_onnx.cheapest_runs``): a run pads
every text to its longest, so a long text must not pad a run of short ones."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbsearch.embed.e5_onnx import RUN_COST_TOKENS, cheapest_runs


def cost(lengths: list[int], runs: list[tuple[int, int]]) -> int:
    return sum(RUN_COST_TOKENS + (end - start) * lengths[end - 1] for start, end in runs)


def test_a_whole_text_runs_apart_from_its_short_key_points() -> None:
    lengths = [15, 18, 20, 22, 25, 221]
    runs = cheapest_runs(lengths, 32)
    assert runs[-1] == (5, 6)
    assert cost(lengths, runs) < cost(lengths, [(0, 6)]) / 3


@given(st.lists(st.integers(1, 512), max_size=80), st.integers(1, 40))
def test_runs_cover_every_text_in_order_within_the_batch_size(raw: list[int], most: int) -> None:
    lengths = sorted(raw)
    runs = cheapest_runs(lengths, most)
    assert [i for start, end in runs for i in range(start, end)] == list(range(len(lengths)))
    assert all(0 < end - start <= most for start, end in runs)
    fixed = [(start, min(start + most, len(lengths))) for start in range(0, len(lengths), most)]
    assert cost(lengths, runs) <= cost(lengths, fixed)
