"""A query's terms written alike in both languages (names, hardware, figures)
and its rare coined names, in hybrid search across languages.

Project-written fixtures, after the new-user probe's month: a Chinese
description query holding an English record's model, hardware and figure lost
to Chinese records sharing its mechanism words; an English query naming a
Chinese record's system lost to an English record sharing its other words."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from support.search_store import increment, store_of

from fake_encoder import FakeEncoder
from kbsearch.search import DEFAULT_FUSION, SearchMode, search
from kbsearch.search.fusion import names_first
from kbsearch.store import Store, lexical

FILLER = [
    ("数据加载流水线的预取", "训练时的数据加载与预取流水线，吞吐更稳定"),
    ("评测集的污染检查", "对评测集做 n-gram 污染检查的工具"),
    ("Tokenizer merges audit", "an audit of tokenizer merges across model releases"),
    ("量化感知训练的学习率", "量化感知训练中学习率的选择"),
]


@pytest.fixture
def store(tmp_path: Path, encoder: FakeEncoder) -> Store:
    records = [increment(f"spark/f{i}", *FILLER[i % len(FILLER)], i) for i in range(40)]
    records += [
        increment(
            "jay/aurokv",
            "AuroKV — straggler-aware collectives",
            "AuroKV detects straggler ranks from per-step timing and reroutes their collectives. "
            "On DeepSeek-V4 / B200 it raises decode throughput by 57% against the stock engine.",
            41,
        ),
        increment(
            "spark/orroweave",
            "CMU 实验室的注意力探针重排方案 OrroWeave",
            "OrroWeave 用生成模型在短探针上的注意力对检索片段重排，KV 显存降低 4.5 倍。",
            42,
        ),
        increment(
            "spark/veridprism",
            "VeridPrism — attention-probe re-ranking",
            "VeridPrism re-ranks retrieved chunks with attention-probe scores over a short probe; "
            "re-ranking cuts KV memory by 6.4x.",
            43,
        ),
    ]
    # Chinese look-alikes: the query's mechanism words, one of its Latin terms at most.
    for i, (system, model) in enumerate([("NacreQuant", "DeepSeek-V4"), ("LumenRail", "Qwen3-32B"), ("TarnSync", "")]):
        records.append(
            increment(
                f"spark/look{i}",
                f"慢节点感知的集合通信方案 {system}",
                f"{system} 慢节点感知的集合通信：根据每步耗时识别慢节点并重排集合通信，{model} 上吞吐提升明显。",
                50 + i,
            )
        )
    return store_of(tmp_path, records, encoder)


def ids(store: Store, encoder: FakeEncoder, query: str, k: int = 5, **fusion: object) -> list[str]:
    found = search(store, encoder, query, k, mode=SearchMode.hybrid, fusion=replace(DEFAULT_FUSION, **fusion))
    return [h.id for h in found.results]


def test_neutral_terms_of_a_query() -> None:
    mixed = lexical.query_terms("月之暗面 慢节点感知的集合通信 DeepSeek-V4 B200 decode 吞吐提升 57%")
    assert mixed.neutral == ["deepseek-v4", "b200", "decode", "57%"]  # every Latin token beside Chinese
    english = lexical.query_terms("document KV caching for RAG Kimi K3 H200 lowers p99 TTFT by 43%")
    assert english.neutral == ["kv", "rag", "k3", "h200", "p99", "ttft", "43%"]  # not "document", "lowers"


def test_a_chinese_query_finds_the_english_record_holding_its_latin_terms(store: Store, encoder: FakeEncoder) -> None:
    query = "慢节点感知的集合通信 DeepSeek-V4 B200 decode 吞吐提升 57%"
    assert ids(store, encoder, query)[0] == "jay/aurokv"


def test_the_latin_terms_bring_their_record_among_the_candidates(store: Store, encoder: FakeEncoder) -> None:
    # With two candidates a side, the Chinese look-alikes fill the lexical side's list (and no
    # rare coined name brings the record in: these are words and a figure).
    query = "慢节点感知的集合通信 decode throughput 吞吐提升 57%"
    assert lexical.query_terms(query).names == []
    assert "jay/aurokv" in ids(store, encoder, query, k=2, depth=2)


def test_a_rare_coined_name_lifts_its_record_over_a_look_alike(store: Store, encoder: FakeEncoder) -> None:
    found = ids(store, encoder, "OrroWeave attention-probe re-ranking")
    assert found.index("spark/orroweave") < found.index("spark/veridprism")


def test_names_first_lifts_every_holder_by_one_amount() -> None:
    scores = {1: 0.9, 2: 0.5, 3: 0.4, 4: 0.3}
    lifted = names_first(scores, {"orroweave": [3, 4]})
    assert lifted[1] == 0.9 and lifted[2] == 0.5
    assert lifted[3] > lifted[4] > 0.9
    assert lifted[3] - lifted[4] == pytest.approx(0.1)
    # a holder of one of two names is left as it was; no holder, or holders on top already: unchanged
    assert names_first(scores, {"a": [3, 4], "b": [4]})[3] == 0.4
    assert names_first(scores, {"a": [1]}) == scores
    assert names_first(scores, {}) == scores
