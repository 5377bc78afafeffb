"""News of different companies, or of one company on other hardware, are different items
(``dedupe.subjects``), even when the titles share a coined word of the trade.

Probe 29: Nimbus's and Cumulus's H100 price cuts (both "per GPU-hour") were one item, as were
Nimbus's H200 cut and its H100 cut, and Marlin's B200 outage and Kestrel's H200 outage (both
"NVLink"). Probe 27: Marlin (Kite Research) was taken for Kestrel-Coder, another coding agent
on the same benchmark. A retelling in the other language names the same company and hardware,
and stays for the learned decision."""

from __future__ import annotations

from conftest import fake_config
from support.embedded import judged as compared

from fake_encoder import FakeEncoder
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.subjects import hardware_differs, title_subject
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()
CONFIG = fake_config()
PRICE = "On-demand price for 8-GPU nodes with InfiniBand, effective this week; reserved prices also lower."


def record(rid: str, title: str, text: str = PRICE) -> Record:
    return Record(id=rid, kind=Kind.increment, date="2026-11-03", title=title, text=text, claims=[])  # type: ignore[arg-type]


def judged(a: Record, b: Record, count: int = 1) -> tuple[Rule, bool, str]:
    # Every name rare by default: a young index holds GPU-hour and NVLink in few records.
    return compared(a, b, lambda name: count)


NIMBUS = record("spark-1", "Nimbus Cloud cuts on-demand H100 price to $2.49 per GPU-hour")


def test_two_clouds_cutting_prices_are_two_items_though_both_titles_say_gpu_hour() -> None:
    cumulus = record("spark-2", "Cumulus GPU cuts H100 on-demand price to $2.69 per GPU-hour")
    rule, same, reason = judged(cumulus, NIMBUS)
    assert (rule, same) == (Rule.different_names, False), reason
    assert "cumulus / nimbus" in reason


def test_one_cloud_cutting_the_price_of_other_hardware_is_another_item() -> None:
    title = "Nimbus Cloud cuts H200 on-demand price to $3.29 per GPU-hour"
    h200 = record("vera-1", title, PRICE + " H100 stays at $2.49.")
    rule, same, reason = judged(h200, NIMBUS)
    assert (rule, same) == (Rule.different_names, False), reason
    assert "H200 / H100" in reason


def test_outages_on_other_hardware_sharing_nvlink_are_two_items() -> None:
    text = "All-reduce hung after NVLink Xid errors on one node; the job was restarted from a checkpoint."
    marlin = record("spark-3", "Marlin AI B200 集群 NVLink 错误导致训练中断 2 小时", text)
    kestrel = record("spark-4", "Kestrel Labs H200 集群因 NVLink 错误停摆约 3 小时", text)
    rule, same, reason = judged(marlin, kestrel)
    assert (rule, same) == (Rule.different_names, False), reason
    assert "B200 / H200" in reason


def test_a_coding_agent_with_its_maker_in_brackets_is_not_another_agent() -> None:
    text = "The coding agent resolves issues with a planner and a reviewer model, pass@1 on SWE-bench Verified."
    marlin = record("stephen-1", "Marlin (Kite Research) scores 70.2% on SWE-bench Verified", text)
    kestrel = record("stephen-2", "Kestrel-Coder reaches 72.1% on SWE-bench Verified", text)
    rule, same, reason = judged(marlin, kestrel)
    assert (rule, same) == (Rule.different_names, False), reason
    assert (title_subject(marlin.title), title_subject(kestrel.title)) == ("marlin", "kestrel-coder")


def test_a_retelling_in_chinese_of_the_same_cut_stays_for_the_learned_decision() -> None:
    chinese = record("vera-2", "Nimbus Cloud 将 H100 按需价下调至 2.49 美元/卡·小时", "Nimbus 8 卡节点按需价本周生效。")
    # GPU-hour common, as the trade's vocabulary is (the names rule, not this one, reads its rarity).
    rule, _, reason = judged(chinese, NIMBUS, count=50)
    assert rule is not Rule.different_names, reason


def test_an_update_naming_other_hardware_beside_its_own_stays_one_item() -> None:
    orion = "Orion AI 的 MI300X 推理集群 — 吞吐为 H100 的 1.3x"
    assert hardware_differs(orion, "Orion AI doubles its MI300X fleet") is None
    assert hardware_differs("Kestrel Labs outage revised: 5 hours", "Kestrel Labs H200 集群停摆约 3 小时") is None
