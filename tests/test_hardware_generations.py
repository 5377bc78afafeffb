"""A chip's generation (NPU v3 against NPU v4) and a memory generation (HBM4 against HBM4E, or
against another maker's GPU) are other hardware: titles naming different hardware, none in
common, are two items (``subjects.hardware_differs``, ``text.hardware.title_hardware``).

Probe 49: a cloud's price cut of a chip's older generation was the same item as the recap of the
new generation's launch, which its key points named as what customers wait for; a memory maker's
next HBM generation was the same item as a GPU carrying the current one. A retelling names the
hardware its news is on, and a record about two generations names both in its title. The
fixtures are written here."""

from __future__ import annotations

import datetime as dt

import pytest
from support.embedded import judged_rare as judged
from support.embedded import titled

from kbsearch.dedupe.finer import section_on_item
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.subjects import hardware_differs
from kbsearch.records import Kind, Record
from kbsearch.text.hardware import title_hardware

V4_LAUNCH = titled(
    "ines-1",
    "Halden NPU v4 发布回顾",
    "Halden 11 月发布 NPU v4：单芯片 BF16 2.1 PFLOPS，每颗 144GB HBM3E，集群最多 4,096 颗，明年一季度上云。",
    "2026-10-05",
)


@pytest.mark.parametrize(
    ("title", "hardware"),
    [
        ("Nimbus trims NPU v3 on-demand price by 18%", {"NPU v3"}),
        ("Halden NPUv4s 上云", {"NPU v4s"}),
        ("Halden NPU v3 与 v4 对比", {"NPU v3", "NPU v4"}),  # a record about both
        ("Torvik HBM3e, HBM4E and GDDR7 lines", {"HBM3E", "HBM4E", "GDDR7"}),
        ("Velora B410 carries HBM4", {"B410", "HBM4"}),
        ("The v4 chip ships; HBM stacks under a new rule", set()),  # no kind, no generation
    ],
)
def test_what_hardware_a_title_names(title: str, hardware: set[str]) -> None:
    assert title_hardware(title) == hardware


def test_a_price_cut_of_the_older_generation_is_not_the_new_generations_launch() -> None:
    text = (
        "Nimbus cut the NPU v3 on-demand price by 18% to $2.10 per chip-hour, to free capacity "
        "as customers plan for Halden NPU v4."
    )
    cut = titled("ola-1", "Nimbus trims NPU v3 on-demand price by 18%", text, "2026-10-06")
    rule, same, reason = judged(cut, V4_LAUNCH)
    assert (rule, same) == (Rule.different_names, False), reason
    assert "NPU v3 / NPU v4" in reason


def test_a_record_about_both_generations_and_a_retelling_stay_for_the_learned_decision() -> None:
    both = "Halden NPU v3 与 v4 对比：算力翻倍"
    retold = "Halden NPU v4 launch recap: 2.1 PFLOPS BF16, 144 GB HBM3E"
    assert hardware_differs(both, V4_LAUNCH.title) is None
    assert hardware_differs(both, "Nimbus trims NPU v3 on-demand price by 18%") is None
    assert hardware_differs(retold, V4_LAUNCH.title) is None


def test_a_memory_makers_next_generation_is_not_a_gpu_carrying_the_current_one() -> None:
    gpu = titled(
        "ola-2",
        "Velora B410 — engineering samples reach two clouds ahead of volume shipments",
        "Engineering samples of the B410 reached two clouds; each B410 carries 288 GB of HBM4 at 16 TB/s.",
    )
    memory = titled(
        "ola-3",
        "Torvik HBM4E 12-Hi — volume production next autumn, about 1.4x the price of HBM4",
        "Torvik plans HBM4E 12-Hi volume production for next autumn; samples went to Velora for its next GPU.",
        "2026-12-04",
    )
    rule, same, reason = judged(memory, gpu)
    assert (rule, same) == (Rule.different_names, False), reason
    assert "HBM4, HBM4E / B410" in reason


def test_one_makers_memory_generations_are_two_items_and_a_retelling_is_not_set_apart() -> None:
    assert hardware_differs("Torvik HBM4 12-Hi 进入量产", "Torvik 向客户交付 HBM4E 样品") is not None
    retold = "Torvik HBM4E 12-Hi — volume production next autumn, about 1.4x the price of HBM4"
    assert hardware_differs(retold, "Torvik 向客户交付 HBM4E 样品") is None


def test_a_sections_lines_on_another_generation_are_not_on_the_item() -> None:
    """Check's evidence for a claim and audit's "in doc" read one section's lines on the item: a
    line naming the cloud beside the new generation is no line on the old one's price cut."""
    section = Record(
        id="doc/chips#§2.1", kind=Kind.doc_section, title="§2.1 自研 ASIC", date=dt.date(2026, 10, 1),
        text="Halden 于 9 月发布 NPU v4：BF16 2.1 PFLOPS，Nimbus 预计明年一季度上线。",
    )  # fmt: skip
    cut = titled("ola-8", "Nimbus trims NPU v3 on-demand price by 18%", "Nimbus cut NPU v3 prices.")
    assert section_on_item(cut, section, frozenset({"nimbus"}), ()) is None
    launch = titled("ola-9", "Nimbus 上线 NPU v4", "Nimbus 开放 NPU v4 预览。")
    found = section_on_item(launch, section, frozenset({"nimbus"}), ())
    assert found is not None and found[1] == "the section names Nimbus"
