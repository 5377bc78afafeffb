"""A standard term in one form finds the records written in another
(``kbsearch.text.terms``, ``kbsearch.search.expansion``).

Project-written fixtures, after the new-user probe of 6 December: ``键值缓存
量化`` missed the card that writes ``KV 缓存量化``, ``Mixture of Experts`` the
one that writes ``MoE``."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.search_store import increment, store_of

from fake_encoder import FakeEncoder
from kbsearch.search import SearchMode, search
from kbsearch.search.expansion import groups, retrieval, with_forms
from kbsearch.search.fusion import term_coverage
from kbsearch.store import Store, lexical
from kbsearch.text.terms import forms_in

FILLER = [
    ("数据加载流水线的预取", "训练时的数据加载与预取流水线，吞吐更稳定"),
    ("评测集的污染检查", "对评测集做 n-gram 污染检查的工具"),
    ("Storage tiering for checkpoints", "checkpoint storage tiers and their average write cost"),
    ("权重量化的误差分析", "逐层分析权重量化误差的来源"),
]


@pytest.fixture
def store(tmp_path: Path, encoder: FakeEncoder) -> Store:
    records = [increment(f"spark/f{i}", *FILLER[i % len(FILLER)], i) for i in range(30)]
    records += [
        increment(
            "spark/frostkv",
            "FrostKV：KV 缓存的 2-bit 量化",
            "FrostKV 把 KV 缓存按通道做 2-bit 量化，显存降到四分之一。",
            31,
        ),
        increment(
            "spark/tidemoe",
            "TideMoE：MoE 推理的专家放置",
            "TideMoE 按激活频率在 GPU 之间放置专家，MoE 推理吞吐提升。",
            32,
        ),
        increment("spark/ragbook", "检索增强生成的分块策略", "检索增强生成里文档分块大小对召回的影响。", 33),
    ]
    return store_of(tmp_path, records, encoder)


def ids(store: Store, encoder: FakeEncoder, query: str, mode: SearchMode, k: int = 3) -> list[str]:
    return [h.id for h in search(store, encoder, query, k, mode=mode).results]


def test_a_query_names_a_term_in_any_form() -> None:
    assert [f.forms[0] for f in forms_in("键值缓存 量化")] == ["kv cache", "quantization"]
    assert [f.forms[0] for f in forms_in("Mixture-of-Experts placement")] == ["moe"]
    assert [f.forms[0] for f in forms_in("KV-cache eviction")] == ["kv cache"]
    # a short abbreviation is a word, not a piece of one; a form inside a longer one is none of its own
    assert forms_in("storage for vllm") == []
    assert [f.forms[0] for f in forms_in("sparse attention kernels")] == ["sparse attention"]


def test_the_other_forms_are_searched_but_count_as_one_term() -> None:
    terms = with_forms(lexical.query_terms("键值缓存 量化"), "键值缓存 量化")
    assert terms.all() == ["键值缓", "值缓存", "量化"]  # the coverage's whole is the query's own
    wider = retrieval(terms)
    assert "kv 缓存" in wider.long and "kv cache" in wider.long and "键值缓" in wider.long
    assert "rag" not in retrieval(with_forms(lexical.query_terms("检索增强生成"), "检索增强生成")).long
    weights = {"键值缓": 1.0, "值缓存": 1.0, "量化": 1.0}
    text = "frostkv 把 kv 缓存按通道做 2-bit 量化"
    assert term_coverage(weights, text) == pytest.approx(1 / 3)
    assert term_coverage(weights, text, groups=groups(terms)) == pytest.approx(1.0)


@pytest.mark.parametrize("mode", [SearchMode.lexical, SearchMode.hybrid])
def test_the_chinese_long_form_finds_the_abbreviation(store: Store, encoder: FakeEncoder, mode: SearchMode) -> None:
    assert ids(store, encoder, "键值缓存 量化", mode)[0] == "spark/frostkv"


def test_the_english_long_form_finds_the_abbreviation(store: Store, encoder: FakeEncoder) -> None:
    assert ids(store, encoder, "Mixture of Experts expert placement", SearchMode.hybrid)[0] == "spark/tidemoe"


@pytest.mark.parametrize("mode", [SearchMode.lexical, SearchMode.hybrid])
def test_the_english_forms_find_the_chinese_terms(store: Store, encoder: FakeEncoder, mode: SearchMode) -> None:
    assert ids(store, encoder, "key-value cache quantization", mode)[0] == "spark/frostkv"
