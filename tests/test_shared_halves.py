"""A half in words is no figure two records share as evidence of one item.

Probe 10: audit merged a price cut "by half" (price "drops 50%") with a memory
"显存减半" and with a CPU cost "减少约一半": each half was read as two figures
(2x and 50%), so three different items shared two figures each.
"""

from __future__ import annotations

from support.embedded import embedded

from kbsearch.text.spelled import halves_unread
from kbsearch.text.textsim import substantive_numbers


def test_a_price_cut_by_half_shares_no_figure_with_a_memory_halved() -> None:
    price = embedded("st", "Gemini Flash batch pricing cut by half", "The batch price drops 50%.")
    memory = embedded("jay", "KV Cache 存成 FP4", "官方称显存减半，精度损失小于 1%。")
    engine = embedded("jay2", "调度器重写", "TTFT 下降 35%，CPU 开销减少约一半。")
    assert not price.numbers & memory.numbers and not price.numbers & engine.numbers
    assert price.numbers == {"50%"}


def test_a_figure_in_digits_is_still_shared_and_claims_still_read_the_half() -> None:
    assert substantive_numbers(halves_unread("halves the memory, 3.2x faster")) == {"3.2x"}
    assert {"2x", "50%"} <= substantive_numbers("显存减半")  # a retold half is no new figure
