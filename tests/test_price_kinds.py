"""A figure of another kind of price is not the claim's figure (probe 29, V4-1): a cloud's
reserved $2.69 per GPU-hour was known from another record's on-demand $2.69."""

from __future__ import annotations

from test_dedupe_rules import claim_status, embedded

from kbsearch.records import Kind
from kbsearch.text.price_kinds import price_kinds, priced_otherwise

ON_DEMAND = (
    "Cumulus GPU cuts H100 on-demand price to $2.69 per GPU-hour\n"
    "Price: on-demand H100 PCIe and SXM both drop from $3.20 to $2.69 per GPU-hour, effective 2026-11-04\n"
    "Commitment: no reserved tier; a volume discount of 10% applies above 10,000 GPU-hours a month"
)


def test_a_reserved_price_is_not_known_from_an_on_demand_one_of_the_same_figure() -> None:
    known = embedded("a", "", ON_DEMAND, Kind.increment)
    reserved = claim_status(known, "Reserved: 1-year commitment at $2.69 per GPU-hour", True)
    assert not reserved.known and reserved.new_numbers == ["2.69"]


def test_the_same_kind_of_price_from_another_writer_stays_known() -> None:
    known = embedded("a", "", ON_DEMAND, Kind.increment)
    assert claim_status(known, "On-demand H100 now $2.69 per GPU-hour at Cumulus", True).known
    assert claim_status(known, "H100 按需价格降至 2.69 美元/GPU·小时", True).known
    assert claim_status(known, "Cumulus H100 price drops to $2.69 per GPU-hour", True).known  # no kind named


def test_a_record_naming_no_kind_for_the_figure_still_states_it() -> None:
    assert priced_otherwise("reserved at $2.69", ["Price: $2.69 per GPU-hour. Spot capacity is short."]) == set()
    assert priced_otherwise("spot H100 at $1.85", ["on-demand H100 at $1.85", "按需价格 1.85 美元"]) == {"1.85"}
    assert priced_otherwise("the on-demand loader keeps 2.69 GB", ["on-demand paging of 2.69 GB"]) == set()
    assert price_kinds("预留实例与现货价格；spotlight on 3 reservations") == {"reserved", "spot"}
