"""Probe 21: a count the record states, moved on by the claim ("从 40 个扩展到 60 个"), is a
changed figure, not detail of the record; and a half of a group ("有一半已修复") is 50%
only, not also the 2x of a cut."""

from __future__ import annotations

import pytest
from test_dedupe_rules import claim_status, embedded

from kbsearch.records import Kind
from kbsearch.text.textsim import substantive_numbers
from kbsearch.text.told_changes import figures_changed

RECORD = "MCP-Bench 压测 40 个 MCP server：28% 的 server 返回不合法的工具 schema"


@pytest.mark.parametrize(
    "claim",
    [
        "v2 把被测 MCP server 从 40 个扩展到 60 个",
        "v2 把被测 MCP server 由 40 个扩大到 60 个",
        "v2 expands the tested MCP servers from 40 to 60",
    ],
)
def test_a_stated_count_moved_to_a_new_one_is_a_new_figure(claim: str) -> None:
    known = embedded("jay", "MCP-Bench 压测 40 个 MCP server", RECORD, kind=Kind.increment)
    status = claim_status(known, claim, True)
    assert not status.known and status.new_numbers == ["60"] and status.extra_numbers == []


def test_a_scope_grown_is_read_as_a_change() -> None:
    assert figures_changed("把被测 server 从 40 个扩展到 60 个") == [({"40"}, {"60"})]
    assert figures_changed("extended the suite from 40 to 60 servers") == [({"40"}, {"60"})]
    assert figures_changed("scaled to 60 servers from a 40-server pilot") == []  # no "from X to Y"


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        ("取消请求后挂住的 server 中有一半在 v2 发布前已修复", {"50%"}),
        ("识别超过一半的测试图像", {"50%"}),
        ("识别半数测试图像", {"50%"}),
        ("recognises half of the test images", {"50%"}),
        ("通过半结构化访谈分析", set()),  # 通过 + 半结构化: no half
        ("参数数量仅为 DCGAN 的一半", {"2x", "50%"}),  # a figure cut to half
        ("显存降到一半", {"2x", "50%"}),
        ("节省一半 KV 缓存", {"2x", "50%"}),
        ("uses half the memory", {"2x", "50%"}),
    ],
)
def test_a_half_of_a_group_is_a_share_and_a_half_cut_to_is_also_a_multiple(text: str, figures: set[str]) -> None:
    assert substantive_numbers(text) == figures
