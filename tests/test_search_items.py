"""The records of one item rank together (kbsearch.search.items), a second
direct hit of the item included: it is lifted with its item, not left below
the item's weaker records and another item's record (the HydraServe probe)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.responses import SearchHit
from kbsearch.search import DEFAULT_FUSION, search
from kbsearch.store import ChangeSet, Store

HYDRA = "2610.02345"
QUERY = "LoRA adapter 多租户 调度"
# jay's record leads; spark's, the English one about the same id alone with the
# name leading its title, is the third best hit on its own score, below the
# vLLM PR (another item); the correction and the round-up lead with the name
# but match the query little.
PROBE = [
    ("jay/hydra#1", "HydraServe：数千个 LoRA adapter 的多租户调度与服务",
     "HydraServe 提出面向多租户场景的 LoRA adapter 调度器，把 adapter 的加载、换出与请求批处理统一调度，"
     "在 A100 上服务 2000 个 adapter 时吞吐提升 3.1 倍，尾延迟下降 40%。", [HYDRA]),
    ("spark/hydra#1", "HydraServe: serving thousands of LoRA adapters to many tenants",
     "HydraServe schedules LoRA adapter loading, eviction and request batching together for multi-tenant "
     "serving; with 2,000 adapters on A100 it reaches 3.1x throughput and 40% lower tail latency than S-LoRA.",
     [HYDRA]),
    ("jay/hydra-fix#1", "HydraServe 更正：昨日数字有误",
     "更正：昨日简报中 HydraServe 的尾延迟数字写错，应为 40% 而非 45%。", []),
    ("tom/roundup#1", "HydraServe 之外：本周推理系统论文回顾",
     "本周回顾：HydraServe、投机解码的新草稿模型、KV cache 压缩与 MoE 专家并行各有进展。", []),
    ("tom/vllm-pr#1", "vLLM PR #24001 — chunked prefill 与多 LoRA",
     "vLLM 合入 PR #24001：chunked prefill 与多 LoRA 同批执行，LoRA adapter 切换不再打断预填充，"
     "多租户调度的吞吐提升 18%。", []),
    ("jay/sched#1", "多租户推理集群的请求调度", "面向多租户大模型推理集群的请求调度器，按 SLO 分级排队。", []),
    ("spark/tgi#1", "TGI enters maintenance mode", "Hugging Face TGI enters maintenance mode.", []),
    ("spark/offload#1", "Zero-copy KV cache offloading", "OSDI '26: zero-copy offloading of the KV cache.", []),
]  # fmt: skip
# Three records of one item and nothing else: a query they all score below
# zero on (it found nothing) ranks them by their own scores.
QUOKKA = [
    ("a", "Quokka: 长上下文的稀疏注意力", "Quokka 把注意力稀疏化，长上下文推理快 2 倍", ["2610.01111"]),
    ("b", "Quokka — sparse attention for long contexts", "Quokka sparsifies attention; twice as fast", ["2610.01111"]),
    ("c", "Quokka 更正", "更正：速度数字应为 2 倍", ["2610.01111"]),
]  # fmt: skip
NOTHING_FOUND = "apple dog music"


def stored(folder: Path, encoder: FakeEncoder, rows: list[tuple[str, str, str, list[str]]]) -> Store:
    store = Store.open(folder / "idx", create=True)
    records = [
        Record(id=rid, kind=Kind.increment, title=title, text=text, arxiv_ids=about, source="/src/p.jsonl", position=n)
        for n, (rid, title, text, about) in enumerate(rows)
    ]
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    return store


def ranked(store: Store, encoder: FakeEncoder, query: str, *, lifted: bool = True) -> list[SearchHit]:
    fusion = DEFAULT_FUSION if lifted else replace(DEFAULT_FUSION, item_share=0.0)
    return search(store, encoder, query, 8, fusion=fusion).results


@pytest.fixture
def probe(tmp_path: Path, encoder: FakeEncoder) -> Store:
    return stored(tmp_path, encoder, PROBE)


def test_the_probe_has_the_item_s_second_hit_among_the_leaders_below_another_item(
    probe: Store, encoder: FakeEncoder
) -> None:
    own = [h.id for h in ranked(probe, encoder, QUERY, lifted=False)]
    assert own[:3] == ["jay/hydra#1", "tom/vllm-pr#1", "spark/hydra#1"], own


def test_a_second_hit_of_the_leading_item_ranks_with_it(probe: Store, encoder: FakeEncoder) -> None:
    hits = ranked(probe, encoder, QUERY)
    order = [h.id for h in hits]
    assert order[0] == "jay/hydra#1" and hits[0].item_of is None  # the leader keeps its place
    # spark's record outscores the correction and the round-up on its own; it
    # was left below them and below the vLLM PR (fourth and fifth)
    assert order[1] == "spark/hydra#1", order
    assert order.index("spark/hydra#1") < order.index("tom/vllm-pr#1"), order
    assert hits[1].item_of == "jay/hydra#1"
    assert hits[1].score == pytest.approx(DEFAULT_FUSION.item_share * hits[0].score, abs=1e-3)


def test_an_item_s_lifted_records_keep_the_order_of_their_own_scores(probe: Store, encoder: FakeEncoder) -> None:
    own = {h.id: h.score for h in ranked(probe, encoder, QUERY, lifted=False)}
    lifted = [h.id for h in ranked(probe, encoder, QUERY) if h.item_of == "jay/hydra#1"]
    assert len(lifted) == 3 and lifted == sorted(lifted, key=lambda rid: -own[rid]), (lifted, own)


def test_a_query_that_found_nothing_lifts_nothing(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = stored(tmp_path, encoder, QUOKKA)
    own = ranked(store, encoder, NOTHING_FOUND, lifted=False)
    assert all(h.score < 0 for h in own), [(h.id, h.score) for h in own]
    hits = ranked(store, encoder, NOTHING_FOUND)
    # 0.9 of the best hit's score would be above it
    assert [h.id for h in hits] == [h.id for h in own] and not any(h.item_of for h in hits)


# One paper reported by an increment and a card, and a living-doc section that
# lists that paper alone: the section is the topic's overview, not the item.
WREN = "2610.04444"
WREN_QUERY = "merged draft heads speculative decoding"


@pytest.fixture
def wren(tmp_path: Path, encoder: FakeEncoder) -> Store:
    rows = [
        ("spark/wren#1", Kind.increment, "Wren — merged draft heads for speculative decoding",
         "Wren merges several draft heads into one for speculative decoding; 2.2x faster on a 70B model."),
        ("card/7001", Kind.paper_card, "Wren：无损的草稿头合并",
         "把多个草稿头合并成一个，70B 模型上加速 2.2 倍。"),
        ("doc/inference#§1.9", Kind.doc_section, "§1.9 投机解码", "投机解码方向目前只收录 Wren 一篇。"),
        ("tom/other#1", Kind.increment, "连续批处理的调度", "调度器按请求长度分组，decode 吞吐提高。"),
    ]  # fmt: skip
    store = Store.open(tmp_path / "idx", create=True)
    records = [
        Record(id=rid, kind=kind, title=title, text=text, arxiv_ids=[WREN] * (rid != "tom/other#1"),
               source="/src/w.md", position=n)
        for n, (rid, kind, title, text) in enumerate(rows)
    ]  # fmt: skip
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    return store


def test_a_living_doc_section_is_no_member_of_an_item(wren: Store, encoder: FakeEncoder) -> None:
    """The probe's doc §1.5 was lifted to the SpecFuse item's score (item_of the increment)."""
    own = {h.id: h.score for h in ranked(wren, encoder, WREN_QUERY, lifted=False)}
    hits = {h.id: h for h in ranked(wren, encoder, WREN_QUERY)}
    assert hits["card/7001"].item_of == "spark/wren#1"  # the card is the item
    section = hits["doc/inference#§1.9"]
    assert section.item_of is None and section.score == pytest.approx(own["doc/inference#§1.9"], abs=1e-4)


def test_nor_the_head_of_one_and_its_id_tier_is_the_overview(wren: Store, encoder: FakeEncoder) -> None:
    """For the id alone the section ranked second, above the increment, and headed the card's item."""
    hits = ranked(wren, encoder, WREN)
    assert [(h.id, h.exact) for h in hits] == [
        ("card/7001", "card"),
        ("spark/wren#1", "about"),
        ("doc/inference#§1.9", "overview"),
    ]
    assert all(h.item_of != "doc/inference#§1.9" for h in hits)


def test_records_leading_with_one_plain_word_name_are_one_item(tmp_path: Path, encoder: FakeEncoder) -> None:
    """Probe 25: tom's "Brimstone — 预填充/解码分离…" and spark's English "Brimstone — …" (no arXiv
    id) were two items in search, the English one sixth for a Chinese query, though the gate
    and audit take them as one: a plain-word name had no say in a title's head."""
    from kbsearch.search.items import same_item
    from kbsearch.store import SearchFilter

    rows = [
        ("tom/b#1", "Brimstone — 预填充/解码分离的调度器", "p99 首 token 延迟降低 38%", []),
        ("spark/b#1", "Brimstone — disaggregated prefill/decode scheduler", "cuts p99 TTFT by 38%", []),
        ("spark/c#1", "Continuous batching with preemption", "preemption costs in vLLM", []),
    ]
    store = stored(tmp_path, encoder, rows)
    ids = store.rowids_of(["tom/b#1", "spark/b#1", "spark/c#1"])
    leaders = [ids["tom/b#1"], ids["spark/b#1"], ids["spark/c#1"]]
    assert same_item(store, leaders, SearchFilter()) == {ids["spark/b#1"]: ids["tom/b#1"]}
