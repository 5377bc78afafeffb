"""A widened scope is news unless a record states it (``scope_changes``, read by ``agreeing.stage_moved``).

Own fixtures: a data-centre maintenance window, an export rule, a bug-bounty programme.
"""

from __future__ import annotations

import pytest
from test_claim_said import ALWAYS, record, said

from kbsearch.dedupe.agreeing import stage_moved
from kbsearch.text.scope_changes import scope_widened, widenings

WINDOW = "Orlen Cloud pauses all GPU driver updates during its quarterly maintenance freeze"
WINDOW_ZH = "Orlen Cloud 在季度维护冻结期内暂停所有 GPU 驱动更新"


@pytest.mark.parametrize(
    ("claim", "passage", "move"),
    [
        # across languages, X carries no name: the English record tells no widening
        ("新增：冻结范围扩大到对象存储集群的内核补丁", WINDOW, "scope → also 对象存储集群的内核补丁"),
        ("维护冻结的适用范围扩展至边缘节点", WINDOW, "scope → also 边缘节点"),
        ("同一冻结也适用于 InfiniBand 交换机", WINDOW, "scope → also InfiniBand 交换机"),
        # in one language, by X's words
        ("The freeze now also covers kernel patches on the object-storage cluster", WINDOW,
         "scope → also kernel patches on the object-storage clu"),  # X shown to 40 characters
        ("The maintenance freeze was extended to cover edge nodes", WINDOW, "scope → also edge nodes"),
        ("The freeze is no longer limited to GPU drivers", WINDOW, "scope → beyond GPU drivers"),
        ("冻结范围扩展到边缘节点的固件", WINDOW_ZH, "scope → also 边缘节点的固件"),
    ],
)  # fmt: skip
def test_a_widened_scope_no_record_states_is_news(claim: str, passage: str, move: str) -> None:
    assert scope_widened(claim, passage, [passage]) == move
    assert stage_moved(claim, passage, [passage]) == move  # what the claim decisions read


@pytest.mark.parametrize(
    ("claim", "records"),
    [
        # a restatement of a scope, with no change told
        ("The freeze covers GPU drivers and kernel patches", ["The freeze covers GPU drivers and kernel patches"]),
        # "now also" restating a record that states the widened scope, in its own words
        ("The freeze now also covers kernel patches", ["The freeze covers GPU drivers and kernel patches"]),
        ("冻结范围扩大到边缘节点", ["Orlen 的维护冻结覆盖 GPU 驱动和边缘节点"]),
        # across languages: the record tells the widening itself, or writes X's name or term
        ("新增：冻结范围扩大到对象存储集群的内核补丁", [WINDOW, "The freeze now also covers object-storage patches"]),
        ("同一冻结也适用于 InfiniBand 交换机", ["The freeze covers GPU drivers and InfiniBand switches"]),
        ("The freeze now also covers speculative decoding kernels", ["冻结范围包括投机解码内核"]),
        # a widening to come, and a figure (read by ``quantities``)
        ("The freeze will be extended to edge nodes", [WINDOW]),
        ("冻结范围计划扩展到边缘节点", [WINDOW_ZH]),
        ("The deal was expanded to 60,000 GPUs", [WINDOW]),
        # a method carried to another task is no scope of an item
        ("将该方法扩展到多模态场景", ["该方法面向文本任务"]),
        ("图像还包含语义分割标注", ["数据集有 100 万张图像"]),
    ],
)  # fmt: skip
def test_no_news_when_a_record_states_the_widened_scope_or_none_is_told(claim: str, records: list[str]) -> None:
    assert scope_widened(claim, records[0], records) is None


def test_a_widening_reads_what_it_grew_to_and_what_it_is_no_longer_limited_to() -> None:
    assert widenings("新增：漏洞赏金范围扩大到移动端，不再局限于网页端") == [("移动端", ""), ("", "网页端")]
    assert widenings("The bug bounty now applies to the mobile apps") == [("the mobile apps", "")]
    assert widenings("The bug bounty covers the web app") == []


def test_the_claim_decision_calls_a_widened_scope_new_until_a_record_states_it() -> None:
    claim = "Velda export rule now also applies to inference accelerators"
    first = record("lin", "Velda export rule", "Velda export rule restricts sales of training GPUs")
    alone = said(claim, first, same={"lin"}, shape=ALWAYS)
    assert not alone.known and alone.moved_on == "scope → also inference accelerators"  # type: ignore[attr-defined]
    later = record("mo", "Velda rule update", "Velda export rule covers training GPUs and inference accelerators")
    assert said(claim, first, later, same={"lin", "mo"}, shape=ALWAYS).known  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("claim", "grew"),
    [
        # Probe 48: a 从… clause between the scope word (a key point's field) and 扩大到 hid the widening.
        ("范围：从仅限企业版的新建项目扩大到所有工作区，存量项目也要补签", [("所有工作区", "仅限企业版的新建项目")]),
        ("适用范围由华南节点扩展至全部区域", [("全部区域", "华南节点")]),
        ("赏金覆盖从网页端延伸到移动端", [("移动端", "网页端")]),
        # a scope grown from a counted one to what is no figure is a widening too
        ("试点范围从 3 个城市扩大到全省", [("全省", "3 个城市")]),
        # a figure grown (both ends counted) is ``quantities``' reading, not a scope's
        ("试点范围从 3 个城市扩大到 8 个城市", []),
        ("覆盖范围从 300 台扩大到约 900 台", []),
        ("部署规模从 300 台扩大到 900 台", []),
        ("范围从网页端计划扩展到移动端", []),  # to come
    ],
)  # fmt: skip
def test_a_scope_told_grown_from_what_it_was_is_read(claim: str, grew: list[tuple[str, str]]) -> None:
    assert widenings(claim) == grew


def test_a_scope_grown_from_new_projects_to_all_is_news_against_a_record_of_the_narrow_scope() -> None:
    english = "Scope: only new Enterprise projects need the check; existing projects are exempt"
    claim = "范围：从仅限企业版的新建项目扩大到所有工作区，存量项目也要补签"
    assert stage_moved(claim, english, [english]) == "scope → also 所有工作区"
    # a record that already told the widening makes it a retelling
    told = "The check now also applies to every workspace"
    assert stage_moved(claim, told, [english, told]) is None
