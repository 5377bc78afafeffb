"""A figure in Chinese number words finds the record that writes the figure
(``kbsearch.text.figure_words``, ``kbsearch.search.expansion``).

Project-written fixtures, after a researcher's probe (stop 60): ``百分之四十``
and ``四成`` missed the record saying ``40%``, ``三倍`` the one saying ``3x``;
their trigrams found records writing ``百分之四十五`` and ``十三倍`` instead."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.search_store import increment, store_of

from fake_encoder import FakeEncoder
from kbsearch.search import SearchMode, search
from kbsearch.search.expansion import groups, with_forms
from kbsearch.search.fusion import term_coverage
from kbsearch.store import Store, lexical
from kbsearch.text.figure_words import figure_words, read_figures

FILLER = [
    ("数据加载的预取", "训练时的数据加载与预取流水线"),
    ("评测集的污染检查", "对评测集做 n-gram 污染检查"),
    ("Checkpoint storage", "checkpoint storage tiers and their write cost"),
]


@pytest.fixture
def store(tmp_path: Path, encoder: FakeEncoder) -> Store:
    records = [increment(f"spark/f{i}", *FILLER[i % len(FILLER)], i) for i in range(24)]
    records += [
        increment("spark/cinder", "CinderKV 激活卸载", "CinderKV 把激活卸载到主机内存，显存减少40%。", 25),
        increment("spark/near", "显存占用分析", "显存占用的百分之四十五来自激活，四个成员各占一份。", 26),
        increment("spark/third", "权重压缩", "权重压缩以后，模型的显存只剩七成。", 27),
        increment("spark/brisk", "Brisk 调度", "Brisk 调度让吞吐提升 3 倍。", 28),
        increment("spark/twice", "Pair 批处理", "Pair 批处理的吞吐是基线的 2x。", 29),
        increment("spark/teen", "吞吐对比", "吞吐对比：某系统吞吐提升十三倍，两个基线持平。", 30),
    ]
    return store_of(tmp_path, records, encoder)


def test_the_words_are_read_as_the_figure() -> None:
    assert read_figures("百分之四十 显存").split() == ["40%", "显存"]
    assert [form.written for _, form in figure_words("四成 三倍 两倍 一点五倍")] == ["40%", "3x", "2x", "1.5x"]
    # no figure: a range, a word holding 成, 一倍 (after 提升 it is "doubled")
    assert figure_words("三四倍 成本 一成不变 四成员 提升一倍") == []


def test_the_figure_counts_as_one_query_term() -> None:
    terms = with_forms(lexical.query_terms("百分之四十 显存"), "百分之四十 显存")
    assert terms.all() == ["40%", "显存"]
    weights = {"40%": 1.0, "显存": 1.0}
    assert term_coverage(weights, "显存降低四成", groups=groups(terms)) == pytest.approx(1.0)
    assert term_coverage(weights, "百分之四十五的显存", groups=groups(terms)) == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("query", "wanted"),
    [
        ("百分之四十 显存", "spark/cinder"),
        ("四成 显存", "spark/cinder"),
        ("三倍 吞吐", "spark/brisk"),
        ("3 倍 吞吐", "spark/brisk"),
        ("两倍 吞吐", "spark/twice"),
    ],
)
def test_the_record_writing_the_figure_comes_first(store: Store, encoder: FakeEncoder, query: str, wanted: str) -> None:
    # The fake encoder prefers a record sharing characters (百分之四十五, 十三倍): the lexical side lifts the figure's.
    hits = search(store, encoder, query, 3, mode=SearchMode.hybrid).results
    assert hits[0].id == wanted
    assert (hits[0].dense_score or 0.0) < max(h.dense_score or 0.0 for h in hits[1:])


@pytest.fixture
def longer_figures(tmp_path: Path, encoder: FakeEncoder) -> Store:
    records = [increment(f"spark/f{i}", *FILLER[i % len(FILLER)], i) for i in range(24)]
    records += [
        increment("spark/right40", "CinderKV 激活卸载", "CinderKV 把激活卸载到主机内存，显存减少40%，延迟持平。", 25),
        increment("spark/wrong140", "显存占用", "推理时显存占用增加 140%。", 26),
        increment("spark/right3", "Brisk 调度", "Brisk 调度让批处理吞吐提升 3x，延迟持平。", 27),
        increment("spark/wrong13", "吞吐", "吞吐吞吐：吞吐提升 13 倍。", 28),
    ]
    return store_of(tmp_path, records, encoder)


@pytest.mark.parametrize(
    ("query", "wanted"),
    [("百分之四十 显存", "spark/right40"), ("40% 显存", "spark/right40"), ("三倍 吞吐", "spark/right3")],
)
def test_a_longer_figure_is_not_the_figure(
    longer_figures: Store, encoder: FakeEncoder, query: str, wanted: str
) -> None:
    # 140% holds 40%, 13 倍 (13x) holds 3x as text: only a whole figure counts, so the lexical side lifts the right one.
    hits = search(longer_figures, encoder, query, 3, mode=SearchMode.hybrid).results
    assert hits[0].id == wanted
    assert (hits[0].dense_score or 0.0) < max(h.dense_score or 0.0 for h in hits[1:])
    weights = {term: 1.0 for term in with_forms(lexical.query_terms(query), query).all()}
    assert term_coverage(weights, "占用增加 140%, 吞吐 13x, 1.3x, 0.40%") < 1.0
