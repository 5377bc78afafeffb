"""A versioned name's name is the whole hyphenated word (``named_systems.versioned_names``).

Probe 18: spark's "Kestrel-Serve adds prefix-aware autoscaling" then stephen's "Kestrel-Serve
v2.0 按前缀热度自动扩缩容" the same day passed as NEW: "Serve v2.0" was read as a product
Serve (``\\b`` matches after the hyphen), a name the English record never mentions, so the
different-systems rule set the two apart though the learned decision said same item 1.00.
"""

from __future__ import annotations

from conftest import fake_config
from support.embedded import embedded

from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.named_systems import versioned_names
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import compare

CONFIG = fake_config()


def rare(name: str) -> int:
    return 2


def test_a_versioned_hyphenated_word_is_named_whole() -> None:
    assert versioned_names("Kestrel-Serve v2.0 按前缀热度自动扩缩容") == {"kestrel-serve"}
    assert versioned_names("vLLM-Omni 0.2 adds audio input") == {"vllm-omni"}
    assert versioned_names("NVIDIA Dynamo 1.2 ships") == {"dynamo"}


def test_a_repeat_naming_the_version_only_in_one_language_is_not_set_apart() -> None:
    english = embedded(
        "spark", "Kestrel-Serve adds prefix-aware autoscaling", "Replicas scale with how hot each prefix is."
    )
    chinese = embedded("stephen", "Kestrel-Serve v2.0 按前缀热度自动扩缩容", "副本数随前缀热度自动伸缩。")
    for item, known in ((chinese, english), (english, chinese)):
        match = compare(item, known, CONFIG, Neighbourhood(), rare)
        assert match.rule is not Rule.different_names, match.reasons


def test_two_versioned_hyphenated_systems_are_still_two_items() -> None:
    serve = embedded("spark", "Kestrel-Serve v2.0 adds prefix-aware autoscaling", "Replicas follow prefix heat.")
    route = embedded("jay", "Osprey-Route v1.4 按前缀热度路由请求", "请求按前缀热度路由。")
    match = compare(route, serve, CONFIG, Neighbourhood(), rare)
    assert not match.same_item and match.rule is Rule.different_names, match.reasons
