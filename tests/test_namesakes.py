"""Different things that titles name alike (probe 32).

A product named at the head of "<Name> <product words> <version>" ("Wicklow CLI v3", "Brambly
SDK 1.4.2") is its title's name, as the head before a colon is; a plain word a Chinese title
writes before the kind of code part it is ("Dispatcher 接口") names a part, not the item; and
a record that says it is not related to a namesake is not that namesake's record."""

from __future__ import annotations

import pytest
from conftest import fake_config
from support.embedded import embedded

from kbsearch.dedupe.disowned import disowned_names, disowns
from kbsearch.dedupe.rules import different_names
from kbsearch.text.plain_names import title_plain_names

CONFIG = fake_config()


def rare(name: str) -> int:
    """A young index: every name is rare."""
    return 1


@pytest.mark.parametrize(
    ("title", "names"),
    [
        ("Wicklow CLI v3 adds shell completion", {"wicklow"}),
        ("Brambly SDK 1.4.2：修复分页游标丢失", {"brambly"}),
        ("Tansy MCP server 0.7：Corrib 的数据库工具服务器", {"tansy", "corrib"}),
        ("Latency fell to 2.5 ms", set()),  # a sentence: a function word before the number
        ("Introducing agent runtime v2", set()),  # led by its verb
        ("Shipped plugin API 1.2", set()),
        ("Throughput rises 1.8x on H200", set()),  # a factor, no version
        ("Agent memory v2 lands", set()),  # a term of the trade heads it
    ],
)
def test_a_title_led_by_a_product_and_its_version_names_the_product(title: str, names: set[str]) -> None:
    assert title_plain_names(title) == names


def test_two_products_of_one_vendor_are_two_items() -> None:
    """The titles shared only the vendor while the first product's name went unread."""
    first = embedded("a/1", "Tansy MCP server 0.7：Corrib 的数据库工具服务器", "Tansy 提供 12 个 SQL 工具，只读连接。")
    other = embedded("b/2", "Gorse: Corrib's MCP server for log search", "Gorse, also by Corrib, serves log queries.")
    found = different_names(other, first, CONFIG, rare)
    assert found is not None and "tansy" in found[2], found


@pytest.mark.parametrize(
    ("title", "names"),
    [
        ("Marlin 2.0 发布：新的 Dispatcher 接口", {"marlin"}),
        ("Marlin 弃用 Conductor 类", {"marlin"}),
        ("已合入 vLLM 的 Thimble", {"thimble"}),  # a name standing alone is still read
    ],
)
def test_a_code_part_in_a_chinese_title_is_no_name(title: str, names: set[str]) -> None:
    assert title_plain_names(title) == names


def test_a_release_naming_an_interface_is_not_the_record_that_points_to_it() -> None:
    """The Chinese title read "Dispatcher" as its name, which the deprecation record mentions as
    the replacement, and tied the two; the English title reads no such name."""
    release = embedded(
        "a/3", "Marlin 2.0 发布：新的 Dispatcher 接口", "2.0 统一了调度入口，同时提供 Python 与 TypeScript 客户端。"
    )
    deprecation = embedded(
        "b/4", "Marlin deprecates TaskRunner; removal set for 2.0", "Use the Dispatcher API instead of TaskRunner."
    )
    common = lambda name: 9 if name == "marlin" else 1  # noqa: E731  (many records name the framework)
    assert different_names(release, deprecation, CONFIG, common) is not None


LIBRARY = "heron is a small Go client for the MCP protocol (not related to Ashgrove's Heron server)."


def test_a_denial_names_the_namesake_it_disowns() -> None:
    assert disowned_names(LIBRARY) == {"ashgrove", "heron"}
    assert disowned_names("heron 是 Go 写的 MCP 客户端，与 Ashgrove 的 Heron server 无关") == {"ashgrove", "heron"}
    assert disowned_names("heron（不是 Ashgrove 的 Heron 服务）") == {"ashgrove", "heron"}
    assert disowned_names("Heron is not related to Ashgrove's Heron server for tickets") == {"ashgrove", "heron"}


def test_a_record_disowning_a_namesake_is_not_its_record() -> None:
    library = embedded("a/5", "heron: a small Go MCP client", LIBRARY)
    server = embedded("b/6", "Heron MCP server from Ashgrove exposes ticket tools", "Ashgrove's Heron has 9 tools.")
    for one, other in ((library, server), (server, library)):
        found = different_names(one, other, CONFIG, rare)
        assert found is not None and "namesake" in found[2], found


def test_a_denial_leaves_the_records_own_repeat_and_its_hosts_alone() -> None:
    title = "heron: a small Go MCP client"
    assert disowns(LIBRARY, title, "heron 0.3 adds retries") is None  # the library itself
    # Naming nothing of its own title, a denial disowns no namesake: a host, a partner.
    hosted = "Thimble plugin (not affiliated with the vLLM project)"
    assert disowns(hosted, "Thimble plugin for drafts", "Thimble 已合入 vLLM 主干") is None
