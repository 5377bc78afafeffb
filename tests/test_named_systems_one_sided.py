"""The different-systems rule when only one title names a rare system
(``named_systems.names_differ``)."""

from __future__ import annotations

from conftest import fake_config
from support.embedded import embedded

from fake_encoder import FakeEncoder
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.named_systems import systems_only
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded, compare
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()
CONFIG = fake_config()
RELEASE = "v0.30.0 起多节点部署默认把 prefill 与 decode 分到不同节点，TTFT 下降 35%。"


def rare(name: str) -> int:
    return 1 if name in {"nixl", "tgi"} else 50


def test_a_rare_detail_in_one_title_beside_the_shared_subject_leaves_it_to_the_learned_decision() -> None:
    """Probe: a repeat of tom's "vLLM v0.30 默认开启 PD 分离" titled "…, over NIXL" came out NEW,
    every claim new: one title naming one rare name the other never mentions set the two apart,
    though both titles name vLLM v0.30. The same repeat "over Mooncake" (not rare) was DUPLICATE."""
    known = embedded("tom", "vLLM v0.30 默认开启 PD 分离", RELEASE)
    repeat = embedded("re", "vLLM v0.30 makes PD disaggregation the default, over NIXL", RELEASE + " 经 NIXL 传 KV。")
    match = compare(repeat, known, CONFIG, Neighbourhood(), rare)
    assert match.rule is not Rule.different_names, match.reasons


def test_a_rare_system_in_one_title_sharing_no_name_with_the_other_title_is_another_item() -> None:
    """Issue 25: "TGI 正式进入维护模式" was UPDATE of a vLLM-SGLang benchmark that never
    mentions TGI: the titles share no name, and only the item's names a rare system."""
    bench = embedded("jay", "vLLM 与 SGLang 吞吐对比", RELEASE)
    tgi = embedded("tgi", "TGI 正式进入维护模式", RELEASE)
    match = compare(tgi, bench, CONFIG, Neighbourhood(), rare)
    assert not match.same_item and match.rule is Rule.different_names, match.reasons


def test_hardware_and_model_sizes_name_no_system() -> None:
    """Probe: "70b" and "h100" were read as rare system names, so a retelling on other
    hardware titled for it ("H100 集群上…") was set apart from the item it retells."""
    known = embedded("tom", "预填充与解码分离成为多节点默认配置", RELEASE)
    retold = embedded("re", "H100 集群上 70B 模型的预填充解码分离复测", RELEASE)
    assert compare(retold, known, CONFIG, Neighbourhood(), lambda name: 1).rule is not Rule.different_names


def test_the_names_rule_rules_alike_either_way_round() -> None:
    """Probe 10: "TensorRT-LLM 加入 FP4 KV Cache" against "Google halves Gemini batch prices"
    was two items only with the TensorRT record as the item; the other way round the rule had
    no say, and audit (the later record is the item) merged the two at the summary form."""
    kernel = embedded("jay", "TensorRT-LLM 加入 FP4 KV Cache", "新版本把 KV Cache 存成 FP4，显存减半。")
    prices = embedded("st", "Google cuts Gemini Flash batch pricing", "Batch requests now cost half as much.")
    rare_kernel = lambda name: 1 if name in {"tensorrt", "fp4"} else 50  # noqa: E731
    one, other = (
        compare(kernel, prices, CONFIG, Neighbourhood(), rare_kernel),
        compare(prices, kernel, CONFIG, Neighbourhood(), rare_kernel),
    )
    assert one.rule is other.rule is Rule.different_names, (one.reasons, other.reasons)
    assert not one.same_item and not other.same_item


def test_two_paper_cards_keep_the_one_way_names_rule() -> None:
    """A paper card titled for its system ("LoLA: …") and another feed's card of the same
    paper titled for its technique: the dev card streams had such same-paper pairs."""
    card = Record(id="a", kind=Kind.paper_card, title="LoLA: Low-Rank Linear Attention", text=RELEASE)
    other = Record(id="g", kind=Kind.paper_card, title="Log-Linear Attention", text=RELEASE)
    lola, loglin = (Embedded(r, ENCODER.encode(r.passages())) for r in (card, other))
    assert compare(loglin, lola, CONFIG, Neighbourhood(), lambda name: 1).rule is not Rule.different_names


def test_metrics_licences_and_chip_kinds_name_no_system() -> None:
    """Probe 10: reasons read "this one names p99", "mit", "1ms", "8x22b", "lpu" as systems."""
    names = frozenset({"p99", "p50", "1ms", "8x22b", "mit", "apache-2.0", "lpu", "tpu", "3x", "hicache"})
    assert systems_only(names) == {"hicache"}
    known = embedded("tom", "预填充与解码分离成为多节点默认配置", RELEASE)
    retold = embedded("re", "8x22B 模型 p99 降到 1ms，MIT 许可，LPU 上复测", RELEASE)
    assert compare(retold, known, CONFIG, Neighbourhood(), lambda name: 1).rule is not Rule.different_names
