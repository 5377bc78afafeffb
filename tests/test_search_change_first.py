"""A query naming a correction or a change lists the record telling it before its item's first report
(``kbsearch.search.change_first``).

Project-written fixtures, after probe 38: a Chinese query about a score lowered after overlapping items
were removed listed the English first report of the model (cosine 0.50) above its correction (0.34), which
the same-item ranking had put right below it. The encoder gives each record such a cosine, so the test is
about the ranking, not the model."""

from __future__ import annotations

from pathlib import Path

from support.search_store import SteeredEncoder, increment, store_of

from kbsearch.search import SearchMode, search
from kbsearch.search.change_first import names_a_change, tells_a_change
from kbsearch.store import Store

CHANGED = "长文档摘要基准 去重后最高分下调"
PLAIN = "长文档摘要基准 最高分"
OTHER_CHANGED = "Brackwater 修正后的延迟数字"
# marker in the text → the cosine its record has with the queries, along a direction of its own
COSINES = {"first leaderboard": 0.55, "after deduplicating": 0.36, "Brackwater": 0.45, "Ostrel": 0.30}

FIRST = (
    "KestrelSum — a long-document summarisation benchmark",
    "KestrelSum scores summaries of 40-page reports; on its first leaderboard the best model reaches 74.0.",
)
CORRECTION = (
    "KestrelSum v2 corrects its leaderboard",
    "The best score was revised from 74.0 to 71.5 after deduplicating 210 test documents.",
)
# Another item, telling a change of its own: never lifted for being a change when its item is not a leader's.
ELSEWHERE = ("Ostrel serving latency cut", "Ostrel cut p99 latency from 180 ms to 120 ms.")
FILLER = [
    ("数据加载流水线的预取", "训练时的数据加载与预取流水线"),
    ("Tokenizer merges audit", "an audit of tokenizer merges across model releases"),
    ("评测集的污染检查", "对评测集做 n-gram 污染检查的工具"),
]


def steered() -> SteeredEncoder:
    return SteeredEncoder((CHANGED, PLAIN, OTHER_CHANGED), COSINES)


def kb(tmp_path: Path) -> Store:
    records = [increment(f"spark/f{i}", *FILLER[i % len(FILLER)], i) for i in range(24)]
    records += [increment("noa/kestrel-1", *FIRST, 24, "noa"), increment("noa/kestrel-2", *CORRECTION, 26, "noa")]
    records += [increment("kai/ostrel", *ELSEWHERE, 25, "kai")]
    return store_of(tmp_path, records, steered())


def ids(store: Store, query: str) -> list[str]:
    return [h.id for h in search(store, steered(), query, 5, mode=SearchMode.hybrid).results]


def test_a_query_naming_the_change_lists_the_correction_first(tmp_path: Path) -> None:
    found = ids(kb(tmp_path), CHANGED)
    # Without the rule the first report leads and its correction follows it (the item's records rank together).
    assert found[:2] == ["noa/kestrel-2", "noa/kestrel-1"]


def test_a_query_naming_no_change_keeps_the_first_report_first(tmp_path: Path) -> None:
    found = ids(kb(tmp_path), PLAIN)
    assert found[:2] == ["noa/kestrel-1", "noa/kestrel-2"]


def test_a_change_of_another_item_is_not_lifted(tmp_path: Path) -> None:
    found = ids(kb(tmp_path), CHANGED)
    assert found.index("kai/ostrel") > found.index("noa/kestrel-1")


def test_the_words_of_a_revision() -> None:
    assert names_a_change("生成式奖励模型 剔除重叠样本后分数下调")
    assert names_a_change("benchmark score revised after contamination check")
    assert names_a_change("Brackwater 修正后的延迟数字") and names_a_change("erratum to the scaling-law paper")
    # A method's result or a funding round is no revision of a reported fact.
    assert not names_a_change("sparse attention reduces decode latency by 30%")
    assert not names_a_change("startup raised $40M to cut inference cost")
    assert not names_a_change("推理成本降低 40% 的混合专家模型")
    # A method named by a word of correction, and 下调 read across 压力下 + 调整.
    assert not names_a_change("quantum error correction with surface codes")
    assert not names_a_change("self-correction of reasoning traces") and not names_a_change("模型在时间压力下调整行为")


def test_what_tells_a_change() -> None:
    assert tells_a_change(*CORRECTION) and tells_a_change(*ELSEWHERE)
    assert tells_a_change("KestrelSum 更正", "昨日的最高分写错了")
    assert not tells_a_change(*FIRST)


# A correction read as no record of its first report's item (the English title leads with a plain word and a
# verb, so search reads no name there): the figure the query gives links the query to it.
FIGURE_CHANGED = "toxicity filter blocks flagged prompts, block rate corrected to 93.4%"
FIGURE_PLAIN = "toxicity filter blocks flagged prompts, block rate 93.4%"
NO_FIGURE = "toxicity filter blocks flagged prompts, block rate corrected"
FIGURE_COSINES = {"flagged prompts": 0.50, "毒性过滤": 0.45, "Ostrel": 0.30}
REPORT = (
    "Pellucid adds a toxicity filter to its chat API",
    "The filter blocks flagged prompts before a reply is drafted; it blocks 96.1% of them in the vendor's test.",
)
FIGURE_CORRECTION = ("Pellucid 毒性过滤拦截率更正", "红队测试中的拦截率更正为 93.4%（此前公布为 96.1%）。")
# The same figure, told as no change: the query's revision names another record.
FIGURE_STATED = ("Pellucid 毒性过滤的红队结果", "红队测试中的拦截率为 93.4%。")


def figure_ids(
    tmp_path: Path, query: str, second: tuple[str, str] = FIGURE_CORRECTION, first: tuple[str, str] = REPORT
) -> list[str]:
    encoder = SteeredEncoder((FIGURE_CHANGED, FIGURE_PLAIN, NO_FIGURE), FIGURE_COSINES)
    records = [increment(f"spark/f{i}", *FILLER[i % len(FILLER)], i) for i in range(24)]
    records += [increment("liv/report", *first, 24, "liv"), increment("kai/second", *second, 26, "kai")]
    records += [increment("kai/ostrel", *ELSEWHERE, 25, "kai")]
    store = store_of(tmp_path, records, encoder)
    return [h.id for h in search(store, encoder, query, 5, mode=SearchMode.hybrid).results]


def test_a_correction_stating_the_figure_asked_for_is_listed_first(tmp_path: Path) -> None:
    # Without the rule the English report leads on the query's words; it states 96.1%, not 93.4%.
    assert figure_ids(tmp_path, FIGURE_CHANGED)[:2] == ["kai/second", "liv/report"]


def test_a_record_stating_the_figure_as_no_change_keeps_its_place(tmp_path: Path) -> None:
    assert figure_ids(tmp_path, FIGURE_CHANGED, FIGURE_STATED)[:2] == ["liv/report", "kai/second"]


def test_a_better_hit_stating_the_figure_keeps_its_place(tmp_path: Path) -> None:
    restated = (REPORT[0], REPORT[1].replace("96.1%", "93.4%"))
    assert figure_ids(tmp_path, FIGURE_CHANGED, first=restated)[:2] == ["liv/report", "kai/second"]


def test_without_a_figure_or_a_revision_asked_for_the_report_keeps_its_place(tmp_path: Path) -> None:
    assert figure_ids(tmp_path, NO_FIGURE)[:2] == ["liv/report", "kai/second"]
    assert figure_ids(tmp_path, FIGURE_PLAIN)[:2] == ["liv/report", "kai/second"]
