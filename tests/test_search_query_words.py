"""What a query's words count for in search: a plain paper name inside a
Chinese question (Quill 量化掉了几分) is a name; an English function word
(with, and) is no term."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

import pytest
from support.search_store import store_of

from fake_encoder import FakeEncoder
from kbsearch.records import Kind, Record
from kbsearch.search import DEFAULT_FUSION, SearchMode, search
from kbsearch.store import Store, lexical

FILLER = [
    ("推理调度与批处理", "连续批处理让 decode 阶段的吞吐提高，调度器按请求长度分组"),
    ("投机解码的草稿模型", "草稿模型先猜多个 token，目标模型一次验证，接受率决定加速"),
    ("专家并行的通信", "专家放置决定 all-to-all 流量，跨节点的通信是瓶颈"),
]
QUILL = [
    ("Quill — 2-bit KV cache 量化", "离群通道保留高精度，其余压到 2-bit，长文本得分只掉一点"),
    ("Quill: outlier-aware KV quantization", "outlier channels stay in FP16; 5x less cache memory"),
    ("§1.3 KV cache", "量化方面 Quill 把 KV 压到 2-bit；卸载方面有别的工作"),
]


def record(i: int, title: str, text: str) -> Record:
    return Record.model_validate(
        {
            "id": f"tom/w{i}",
            "kind": Kind.increment,
            "title": title,
            "text": text,
            "instance": "tom",
            "date": dt.date(2026, 10, 1 + i % 20),
            "source": "/src/tom.md",
            "position": i,
        }
    )


@pytest.fixture
def kb(tmp_path: Path, encoder: FakeEncoder) -> Store:
    # About 30 records, 3 of them about Quill: the size of a new team's knowledge base.
    rows = [FILLER[i % len(FILLER)] for i in range(27)] + QUILL
    return store_of(tmp_path / "idx", [record(i, t, f"{x} ({i})") for i, (t, x) in enumerate(rows)], encoder)


def test_a_capitalised_word_in_a_chinese_query_is_a_name_candidate() -> None:
    assert lexical.query_terms("Quill 量化掉了几分").words == ["quill"]
    assert lexical.query_terms("Tidal 提升了多少 RouteBench").words == ["tidal"]  # RouteBench is a coined name
    assert lexical.query_terms("Quill quantization").words == []  # an English sentence capitalises anything
    assert lexical.query_terms("quill 量化 KV Llama-3").words == []  # lower case, short, or not one word


def test_a_plain_name_in_a_chinese_question_finds_its_records(kb: Store, encoder: FakeEncoder) -> None:
    query = "Quill 量化掉了几分"
    found = [h.id for h in search(kb, encoder, query, 3).results]
    assert sorted(found) == ["tom/w27", "tom/w28", "tom/w29"]
    no_names = replace(DEFAULT_FUSION, name_weight=0)
    plain = {h.id: h.score for h in search(kb, encoder, query, 30, fusion=no_names).results}
    named = {h.id: h.score for h in search(kb, encoder, query, 30).results}
    assert named["tom/w28"] == pytest.approx(plain["tom/w28"] + DEFAULT_FUSION.name_weight, abs=1e-3)


@pytest.mark.parametrize("query", ["？？", '"', "§ …", "   "])
def test_a_query_of_punctuation_alone_is_refused_as_an_empty_one(index: str, cli, query: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("search", "--index", index, "--", query)
    assert code == 2 and out == ""
    said = "is empty" if not query.strip() else "has no word, number or id, only punctuation"
    assert err.strip() == f"kbsearch: the query {said} (type some words, a title or an arXiv id)"
    code, out, _ = cli("search", "--index", index, "--", "§1.3")  # a section number is a query
    assert code == 0 and out


# A mostly Chinese knowledge base where two English titles hold "with" and "and".
ENGLISH_TITLES = [
    ("Lantern: 2-bit KV cache quantization with outlier channels", "离群通道保留高精度，其余压到 2-bit"),
    ("Forge: tools that grow and settle near a hundred", "编码智能体把重复操作抽象成新工具"),
]


@pytest.fixture
def mixed(tmp_path: Path, encoder: FakeEncoder) -> Store:
    rows = (
        [FILLER[i % len(FILLER)] for i in range(12)] + [("KV cache 卸载到 CXL", "零拷贝卸载 KV cache")] + ENGLISH_TITLES
    )
    return store_of(tmp_path / "idx", [record(i, t, f"{x} ({i})") for i, (t, x) in enumerate(rows)], encoder)


def test_english_function_words_are_no_terms() -> None:
    terms = lexical.query_terms("quantum error correction with superconducting qubits")
    assert terms.long == ["quantum", "error", "correction", "superconducting", "qubits"]
    assert lexical.query_terms("NEAR(KV cache) AND *").all() == ["cache", "kv"]
    assert lexical.query_terms("The KV of Is").all() == ["kv"]
    assert lexical.query_terms("the and").all() == ["the", "and"]  # nothing else asked: they are the query
    assert lexical.query_terms("the and").function == [] and terms.function == ["with"]
    assert lexical.query_terms("without within-node").long == ["without", "within-node"]  # whole tokens only


def test_a_function_word_alone_finds_nothing_in_a_chinese_knowledge_base(mixed: Store, encoder: FakeEncoder) -> None:
    """The Lantern card ranked first in lexical mode, 2.30, for the "with" of its title."""
    assert (
        search(mixed, None, "quantum error correction with superconducting qubits", 5, mode=SearchMode.lexical).results
        == []
    )
    hits = search(mixed, None, "NEAR(KV cache) AND *", 5, mode=SearchMode.lexical).results
    assert hits[0].id == "tom/w12" and "tom/w14" not in [h.id for h in hits]


def test_a_function_word_counts_in_the_coverage_whole_but_is_never_found(mixed: Store, encoder: FakeEncoder) -> None:
    """Left out of the whole, it raised an English query's share of a name held by a
    Chinese sentence ("Tom"), costing 2 of 1,000 Tatoeba en→zh queries."""
    plain = {h.id: h for h in search(mixed, encoder, "Lantern quantization", 20).results}
    worded = {h.id: h for h in search(mixed, encoder, "Lantern quantization with", 20).results}
    # tom/w13 holds "with" and both words: the word adds nothing, and the whole is larger
    lantern_plain, lantern_worded = plain["tom/w13"], worded["tom/w13"]
    assert lantern_worded.score - (lantern_worded.dense_score or 0) < lantern_plain.score - (
        lantern_plain.dense_score or 0
    )
