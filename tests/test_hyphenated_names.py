"""A hyphenated system name is one name (``features.latin_names``, ``features.whole_names``).

Probe 14: "MCP-Guard" (a permissions audit) was an UPDATE of "MCP-Bench" (a tool-call
benchmark): the names were split at the hyphen and only MCP kept, so both titles named
only MCP and the different-systems rule had no say; and a survey section naming the MCP
protocol was read as the benchmark's lines.
"""

from __future__ import annotations

import datetime as dt

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.features import Neighbourhood, latin_names, whole_names
from kbsearch.dedupe.finer import section_on_item
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded, compare
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()
CONFIG = fake_config()
TEXT = "跨多个 MCP server 串联调用工具，用 LLM-as-judge 与规则检查结合判定。"


def embedded(record_id: str, title: str, text: str = TEXT) -> Embedded:
    record = Record(id=record_id, kind=Kind.increment, title=title, text=text)
    return Embedded(record, ENCODER.encode(record.passages()))


def rare(name: str) -> int:
    return 50 if name in {"llm"} else 2


def test_a_hyphenated_name_is_a_name_as_a_whole() -> None:
    assert latin_names("MCP-Bench 与 MCP-Guard") == {"mcp", "mcp-bench", "mcp-guard"}
    assert {"kv-router", "swe-agent", "rag-fusion", "a2a-bridge", "gpu-sched"} <= latin_names(
        "KV-Router, SWE-Agent, RAG-Fusion, A2A-Bridge, GPU-Sched"
    )
    assert "swe-bench" in latin_names("SWE-bench") and "swe-bench" in latin_names("SWE-Bench")


def test_versions_sizes_and_describing_words_make_no_compound() -> None:
    assert latin_names("DeepSeek-V3 and Llama-3.1-8B, Medusa-3") == {"deepseek", "v3", "8b"}
    describing = "LLM-Based AI-Generated KV-Cache LLM-as-Judge Text-to-SQL TensorRT-LLM"
    assert latin_names(describing) == {"kv", "tensorrt"}


def test_a_title_names_the_compound_not_its_acronym() -> None:
    assert whole_names(frozenset({"mcp", "mcp-bench", "routekv"})) == {"mcp-bench", "routekv"}


def test_two_hyphenated_systems_sharing_an_acronym_are_two_items() -> None:
    bench = embedded("jay", "MCP-Bench — 跨 MCP server 的工具调用评测")
    guard = embedded("tom", "MCP-Guard — MCP 工具调用的权限审计")
    match = compare(guard, bench, CONFIG, Neighbourhood(), rare)
    assert not match.same_item and match.rule is Rule.different_names, match.reasons
    assert "mcp-guard" in " ".join(match.reasons)


def test_a_retelling_writing_the_name_apart_run_together_or_alike_is_not_set_apart() -> None:
    bench = embedded("jay", "MCP-Bench — 跨 MCP server 的工具调用评测")
    retellings = [
        embedded("re1", "MCP Bench: a tool-call benchmark across MCP servers"),
        embedded("re2", "MCP-Bench 榜单现状"),
        embedded("re3", "MCPBench leaderboard: tool calls across servers"),
        embedded("re4", "跨服务器工具调用评测的榜单", "MCP Bench 的任务要求跨 server 串联调用工具。"),
    ]
    for retold in retellings:
        for item, known in ((retold, bench), (bench, retold)):
            match = compare(item, known, CONFIG, Neighbourhood(), rare)
            assert match.rule is not Rule.different_names, (item.record.title, match.reasons)


def test_a_section_naming_only_the_acronym_is_not_on_the_item() -> None:
    section = Record(
        id="doc/inference#§2.3", kind=Kind.doc_section, title="§2.3 Agent 评测",
        text="- MCP 生态的评测多用 LLM-as-judge 与规则检查结合打分。", date=dt.date(2026, 11, 1),
    )  # fmt: skip
    item = embedded("jay", "MCP-Bench — 跨 MCP server 的工具调用评测")
    coined = item.named(CONFIG, rare).title
    assert coined == {"mcp-bench"}
    assert section_on_item(item.record, section, coined, ()) is None
    named = section.model_copy(update={"text": "- MCP-Bench 用 LLM-as-judge 与规则检查结合打分。"})
    found = section_on_item(item.record, named, coined, ())
    assert found is not None and found[1] == "the section names MCP-Bench"


def test_the_reason_names_the_system_the_title_leads_with() -> None:
    """Probe 14: audit's in-doc reason read "the section names A2A" for OpenHarness, a
    runtime whose title names the protocols it speaks after its own name."""
    section = Record(
        id="doc/agents#§1.1", kind=Kind.doc_section, title="§1.1 开源运行时",
        text="- OpenHarness 是开源的 Agent 运行框架，同时支持 MCP 与 A2A 两种协议。", date=dt.date(2026, 11, 8),
    )  # fmt: skip
    item = embedded("spark", "OpenHarness: an open-source agent runtime speaking both MCP and A2A")
    found = section_on_item(item.record, section, frozenset({"openharness", "a2a", "mcp"}), ())
    assert found is not None and found[1] == "the section names OpenHarness"
