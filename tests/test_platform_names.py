"""A name a title sets its item on (a model family, an engine) is not the item
(``platforms``): "阿里云百炼下调 Qwen3 系列输入价格" and "Medusa-3 heads for Qwen3" were
one audit cluster, the same item at 0.37 by the rare Qwen3 both name."""

from __future__ import annotations

from conftest import fake_config
from support.embedded import embedded

from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.platforms import platform_names, platform_only
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import compare

CONFIG = fake_config()
PRICE = (
    "阿里云百炼下调 Qwen3 系列输入价格",
    "阿里云百炼平台下调 Qwen3 系列模型的输入 token 价格，Qwen3-235B 输入价格降至每百万 token 2 元，降幅 60%。",
)
MEDUSA = (
    "Medusa-3 heads for Qwen3",
    "The Medusa team released Medusa-3 draft heads trained for Qwen3 models: 2.6x decoding speedup on Qwen3-32B.",
)


def rare(name: str) -> int:
    return 1


def read(title: str, text: str) -> tuple[str, str]:
    return title, f"{title}\n{text}".lower()


def test_a_shared_platform_name_is_not_the_item() -> None:
    assert platform_names(PRICE[0]) == {"qwen3"} and platform_names(MEDUSA[0]) == {"qwen3"}
    for a, b in ((PRICE, MEDUSA), (MEDUSA, PRICE)):
        reason = platform_only(read(*a), read(*b))
        assert reason is not None and "qwen3" in reason and "medusa" in reason, reason
        match = compare(embedded("a", *a), embedded("b", *b), CONFIG, Neighbourhood(), rare)
        assert match.rule is Rule.different_names and not match.same_item, match.reasons


def test_a_repeat_naming_the_item_or_sharing_its_name_is_not_set_apart() -> None:
    # The repeat names Medusa: what the title is about is mentioned.
    zh = ("Qwen3 投机解码草稿头发布", "Medusa 团队为 Qwen3 发布 Medusa-3 草稿头，Qwen3-32B 上解码提速 2.6 倍。")
    assert platform_only(read(*MEDUSA), read(*zh)) is None
    # The titles share a name that is no platform in either (HexKV): one item's names.
    merged = ("HexKV merged into SGLang", "2-bit KV cache quantization, now in SGLang")
    merges = ("SGLang merges HexKV", "SGLang 合入 HexKV 的 2-bit KV cache 量化")
    assert platform_only(read(*merged), read(*merges)) is None
    # A record about the family itself, its title naming nothing of its own, is left to the learned decision.
    release = ("Qwen3 open-weight models released", "Alibaba released Qwen3, dense and MoE models.")
    assert platform_only(read(*PRICE), read(*release)) is None
