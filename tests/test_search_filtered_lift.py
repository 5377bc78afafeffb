"""A filtered search ranks a record as its own evidence and its item deserve
(the probe-11 "prefix caching --instance spark --kind increment" report).

- The item's lift survives a filter that hides the item's best hit: the
  filtered search gives each record the score the unfiltered one gives it.
- A Chinese record's English tag that holds the whole English query matches
  it in full: the query is the record's tag, no cross-language match. A tag
  holding a few of a query's words still counts nothing across languages.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.responses import SearchHit
from kbsearch.search import DEFAULT_FUSION, search
from kbsearch.search.fusion import Fusion
from kbsearch.store import ChangeSet, SearchFilter, Store

# (id, instance, title, text, tags). One item, LoomCache, written up by amy in
# English and by bo in Chinese; bo's other records are other items, one of
# them matching the query's other words better than bo's LoomCache record.
ROWS = [
    ("amy/d1#1", "amy", "LoomCache prefix caching for agent loops",
     "LoomCache reuses the prefix KV pages of an agent loop across tool calls.", []),
    ("bo/d1#1", "bo", "LoomCache：智能体循环的前缀页复用",
     "智能体每一步复用系统提示的前缀页，首字延迟下降三成。", ["prefix-caching", "agents"]),
    ("bo/d2#1", "bo", "分布式文件系统的小文件读取优化", "元数据缓存默认开启，小文件读取更快。", ["storage"]),
    ("bo/d2#2", "bo", "浏览器里跑大模型", "首次加载约两千兆字节。", ["webgpu"]),
    ("bo/d3#1", "bo", "三比特权重量化", "解码吞吐提升两倍。", ["quantization"]),
    ("bo/d3#2", "bo", "Batching the tool calls of agent loops", "Agent loops batch their tool calls.", []),
]  # fmt: skip
QUERY = "LoomCache agent loops tool calls"


@pytest.fixture
def store(tmp_path: Path, encoder: FakeEncoder) -> Store:
    store = Store.open(tmp_path / "idx", create=True)
    records = [
        Record(
            id=rid, kind=Kind.increment, instance=who, title=title, text=text, tags=tags, source="/src/p.md", position=n
        )
        for n, (rid, who, title, text, tags) in enumerate(ROWS)
    ]
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    return store


def hits(
    store: Store, encoder: FakeEncoder, query: str, flt: SearchFilter | None = None, fusion: Fusion = DEFAULT_FUSION
) -> dict[str, SearchHit]:
    return {hit.id: hit for hit in search(store, encoder, query, 10, flt, fusion=fusion).results}


def test_a_filter_that_hides_the_item_s_best_hit_keeps_its_lift(store: Store, encoder: FakeEncoder) -> None:
    everything = hits(store, encoder, QUERY)
    assert next(iter(everything)) == "amy/d1#1"
    assert everything["bo/d1#1"].item_of == "amy/d1#1"
    shown = hits(store, encoder, QUERY, SearchFilter(instance="bo", kinds=[Kind.increment]))
    assert next(iter(shown)) == "bo/d1#1"
    assert shown["bo/d1#1"].item_of == "amy/d1#1"
    # The filter chooses what is shown, not how well it matches.
    assert {rid: hit.score for rid, hit in shown.items()} == {rid: everything[rid].score for rid in shown}


def test_what_is_no_evidence_lifts_nothing(store: Store, encoder: FakeEncoder) -> None:
    # check's own item (exclude_ids) lifts none of its siblings, filtered or not.
    for flt in (SearchFilter(exclude_ids=["amy/d1#1"]), SearchFilter(exclude_ids=["amy/d1#1"], instance="bo")):
        found = hits(store, encoder, QUERY, flt)
        assert found["bo/d1#1"].item_of is None, flt


@pytest.mark.parametrize("flt", [SearchFilter(), SearchFilter(instance="bo")])
def test_a_chinese_record_s_tag_that_is_the_english_query_matches_in_full(
    store: Store, encoder: FakeEncoder, flt: SearchFilter
) -> None:
    # Without the item's lift: bo's record holds "prefix caching" in its tag alone.
    hit = hits(store, encoder, "prefix caching", flt, replace(DEFAULT_FUSION, item_share=0.0))["bo/d1#1"]
    assert hit.dense_score is not None
    assert hit.score - hit.dense_score == pytest.approx(DEFAULT_FUSION.lexical_weight, abs=1e-3)
    assert next(iter(hits(store, encoder, "prefix caching", SearchFilter(instance="bo")))) == "bo/d1#1"


def test_english_words_of_a_chinese_query_in_an_english_record_s_tags_stay_foreign(
    tmp_path: Path, encoder: FakeEncoder
) -> None:
    store = Store.open(tmp_path / "idx2", create=True)
    record = Record(
        id="en#1", kind=Kind.increment, title="Paged serving", text="A scheduler.", tags=["kv-cache"], source="/s.md"
    )
    ingest_records(store, ChangeSet(upserts=[record]), model=encoder.model_id, load_encoder=lambda: encoder)
    hit = hits(store, encoder, "前缀复用 KV cache")["en#1"]
    assert hit.dense_score is not None
    assert hit.score == pytest.approx(hit.dense_score, abs=1e-3)
