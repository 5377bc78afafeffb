"""What a query's words count for in search: a plain paper name inside a
Chinese question (Quill 量化掉了几分) is a name."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

import pytest

from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.search import DEFAULT_FUSION, search
from kbsearch.store import ChangeSet, Store, lexical

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
    store = Store.open(tmp_path / "idx", create=True)
    records = [record(i, t, f"{x} ({i})") for i, (t, x) in enumerate(rows)]
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    return store


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
