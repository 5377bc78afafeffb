"""A system named only with an earlier day's anchor note is cited, not shared
(``named_systems.cited_names``, read by the different-systems rule)."""

from __future__ import annotations

import pytest
from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.features import Neighbourhood, latin_names
from kbsearch.dedupe.named_systems import cited_names
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded, compare
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()
CONFIG = fake_config()
SUMMARY = "按层自适应压缩 KV Cache，显著降低显存占用并保持精度，可作为 vLLM 插件使用。"


def embedded(record_id: str, title: str, text: str, *claims: str) -> Embedded:
    record = Record(id=record_id, kind=Kind.increment, title=title, text=text, claims=list(claims))
    return Embedded(record, ENCODER.encode(record.passages()))


def rare(name: str) -> int:
    return 1 if name in {"freqprune", "triattention", "duocache", "spillkv"} else 50


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("它和 TriAttention（9-17 锚定）的频域压缩正交", {"triattention"}),
        ("ExpertFlow (jay 9-22 已锚定) 之后又一个", {"expertflow"}),
        ("见 C²KV（8-28 已记）", {"c²kv"}),
        ("PolarKV（2026-09-16 首次锚入）", {"polarkv"}),
        ("TriAttention 的 9-17 锚定 版本", set()),  # no note in brackets
        ("arXiv 2608.01526（8-26 锚定）", set()),  # an id, not a name
        ("TriAttention（论文 ID 待查）", set()),  # a note, but no earlier day
        # A comparison cites what it sets the record against, when every mention is one.
        ("Unlike DuoCache, nothing is quantized", {"duocache"}),
        ("Unlike DuoCache, SpillKV keeps FP16", {"duocache"}),  # a comma ends the name
        ("2x faster than H2O and SnapKV, compared with vLLM", {"h2o", "snapkv", "vllm"}),
        ("与 H2O 不同，冷 token 不量化；相比 vLLM 吞吐更高", {"h2o", "vllm"}),
        ("不同于DuoCache的做法，优于 StreamingLLM，比 SGLang 快 2 倍", {"duocache", "streamingllm", "sglang"}),
        ("与 TriAttention 叠加", set()),  # stacking is no comparison
        ("DuoCache 开源了。Unlike DuoCache v1, it quantizes", set()),  # also named plainly
    ],
)
def test_a_name_with_an_earlier_days_anchor_note_is_cited(text: str, cited: set[str]) -> None:
    assert cited_names(text, latin_names) == cited


def test_an_item_citing_a_known_system_is_not_that_system_s_item() -> None:
    """Probe: FreqPrune, a new KV method whose note says it stacks with "TriAttention
    （9-17 锚定）", came out UPDATE of TriAttention, flagged "marked 首次锚入 but first
    seen by jay": the cited name was read as the two records sharing their system."""
    known = embedded("tri", "TriAttention — 用三角函数频域表示压缩 KV Cache", SUMMARY)
    citing = embedded(
        "fp", "FreqPrune — 按层自适应选择保留的 KV token", SUMMARY, "与 TriAttention（9-17 锚定）叠加后 KV 显存再降一半"
    )
    match = compare(citing, known, CONFIG, Neighbourhood(), rare)
    assert not match.same_item and match.rule is Rule.different_names, match.reasons
    assert "triattention only cited here" in match.reasons[0]
    assert match.probability >= match.threshold  # the learned decision alone would have merged them


def test_a_cited_name_in_the_title_or_without_its_note_is_the_item_s_own() -> None:
    known = embedded("tri", "TriAttention — 用三角函数频域表示压缩 KV Cache", SUMMARY)
    title = "FreqPrune — 按层自适应选择保留的 KV token"
    mentioned = embedded("fp", title, SUMMARY, "与 TriAttention 叠加后显存再降一半")
    assert compare(mentioned, known, CONFIG, Neighbourhood(), rare).rule is not Rule.different_names
    update = embedded("up", "TriAttention（9-17 锚定）合入 TensorRT-LLM", SUMMARY, "TensorRT-LLM 的 PR 已合入")
    assert compare(update, known, CONFIG, Neighbourhood(), rare).rule is not Rule.different_names
    retold = embedded("re", "TriAttention（jay 9-17 已锚定）进入 TensorRT-LLM 主分支", SUMMARY)
    assert compare(retold, update, CONFIG, Neighbourhood(), rare).rule is not Rule.different_names


def test_an_item_setting_itself_against_a_known_system_is_not_that_system_s_item() -> None:
    """Probe 8: SpillKV retold in English, one key point "Unlike DuoCache, nothing is
    quantized", came out DuoCache's item (1.00), jay's SpillKV note set aside as the less
    sure match: the compared name was read as the two records sharing their system."""
    known = embedded("duo", "DuoCache — 冷热双层 KV Cache，冷 token 压到低比特", SUMMARY)
    text = "SpillKV — three-tier KV cache offloading to NVMe"
    contrasting = embedded("sp", text, SUMMARY, "Unlike DuoCache, nothing is quantized: cold tokens stay FP16")
    match = compare(contrasting, known, CONFIG, Neighbourhood(), rare)
    assert not match.same_item and match.rule is Rule.different_names, match.reasons
    assert "duocache only cited here" in match.reasons[0]
    plain = embedded("sp2", text, SUMMARY, "DuoCache's tiers, but nothing is quantized")
    assert compare(plain, known, CONFIG, Neighbourhood(), rare).rule is not Rule.different_names
