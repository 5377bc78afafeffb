"""A name of the query counts where the record names it in its own words, not in its meta: the
relation to the living doc names other items (``与 Lumen 同为 4 亿美元，但是不同公司``), so a record
naming neither the query's company nor its figure ranked above the one naming both."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from support.search_store import store_of

from fake_encoder import FakeEncoder
from kbsearch.records import Kind, Record
from kbsearch.search import DEFAULT_FUSION, search
from kbsearch.search.fusion import term_coverage
from kbsearch.search.ranking import _coverage
from kbsearch.store import Store

QUERY = "Lumen 融资 4.5 亿美元"
FILLER = [
    ("推理调度与批处理", "连续批处理让 decode 阶段的吞吐提高，调度器按请求长度分组"),
    ("投机解码的草稿模型", "草稿模型先猜多个 token，目标模型一次验证，接受率决定加速"),
    ("欧盟 AI 法案的执行时间表", "高风险系统的义务推迟一年生效，监管机构将发布指南"),
]


def record(i: int, title: str, text: str, relation: str | None = None) -> Record:
    return Record.model_validate(
        {
            "id": f"mira/n{i}",
            "kind": Kind.increment,
            "title": title,
            "text": text,
            "instance": "mira",
            "date": dt.date(2026, 12, 1 + i % 5),
            "source": "/src/mira.md",
            "position": i,
            "relation": relation,
        }
    )


@pytest.fixture
def kb(tmp_path: Path, encoder: FakeEncoder) -> Store:
    # An industry briefing's knowledge base: Lumen in several records (no rare name), and another
    # company's round whose relation to the living doc names Lumen.
    rows = [record(i, *FILLER[i % len(FILLER)]) for i in range(24)]
    rows += [
        record(
            24,
            "Tessellate 完成 4 亿美元 C 轮融资",
            "Tessellate 完成 4 亿美元 C 轮融资，由 Harbor 领投",
            "§3 新条目（与 Lumen 同为 4 亿美元，但是不同公司）",
        ),
        record(25, "Lumen 的 C 轮增至 4.5 亿美元", "Pinegrove 加入 Lumen 的第二次交割，C 轮增至 4.5 亿美元"),
        record(26, "Lumen 发布 Lumen-Flash", "Lumen 发布推理更快的小模型"),
        record(27, "Lumen 下调 API 价格", "Lumen 把输入价格下调四成"),
        record(28, "意大利监管机构对 Lumen 罚款", "Garante 对 Lumen 罚款 1500 万欧元"),
    ]
    return store_of(tmp_path / "idx", rows, encoder)


def test_a_record_naming_the_querys_company_ranks_above_one_whose_relation_names_it(
    kb: Store, encoder: FakeEncoder
) -> None:
    found = [h.id for h in search(kb, encoder, QUERY, 6).results]
    assert found[0] == "mira/n25"  # Lumen and the figure
    # Every record naming Lumen in its own words above Tessellate's, which names it only in its relation
    # (the Garante fine ranked below it before).
    assert found.index("mira/n24") > max(found.index(f"mira/n{i}") for i in (25, 26, 27, 28))


WEIGHTS = {"lumen": 1.5, "450m": 3.1, "融资": 2.0, "美元": 1.6}
TESSELLATE = ("tessellate 完成 4 亿美元 c 轮融资", "§3 新条目(与 lumen 同为 4 亿美元,但是不同公司)")


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_name_found_only_in_the_meta_counts_nothing(language: str) -> None:
    main, meta = TESSELLATE
    own = _coverage(WEIGHTS, main, meta, "zh", language, DEFAULT_FUSION, {}, [], frozenset({"lumen"}))
    without_meta = _coverage(WEIGHTS, main, "", "zh", language, DEFAULT_FUSION, {}, [], frozenset({"lumen"}))
    assert own == pytest.approx(without_meta)
    in_text = _coverage(WEIGHTS, f"{main} lumen", meta, "zh", language, DEFAULT_FUSION, {}, [], frozenset({"lumen"}))
    assert in_text > own


def test_other_terms_in_the_meta_and_a_tag_saying_the_query_still_count() -> None:
    # In the record's language, a word of the query in its meta (a source, a tag) counts as before.
    meta_word = term_coverage({"融资": 2.0, "美元": 1.6}, "完成 4 亿美元", 1.0, "融资新闻", 1.0)
    assert meta_word == pytest.approx(1.0)
    # A name is not: it counts in the text alone.
    assert term_coverage({"lumen": 1.0}, "tessellate", 1.0, "与 lumen 同为", 1.0, own_words=frozenset({"lumen"})) == 0
    # Unless a line of the meta holds the whole query: the query is then the record's tag.
    tagged = _coverage({"lumen": 1.5}, "另一家公司", "lumen", "zh", "zh", DEFAULT_FUSION, {}, [], frozenset({"lumen"}))
    assert tagged == pytest.approx(1.0)
