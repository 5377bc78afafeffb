"""News filed under a living-doc section is listed above that section (``kbsearch.search.filed_news``).

Project-written fixtures, after new-user probes where a short section ("BM25 and dense results are fused
with RRF") was listed above the increment filed under it that the query asked for (a learned per-query
fusion). The encoder gives each record such a cosine, so the test is about the ranking, not the model."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from support.search_store import SteeredEncoder, increment, store_of

from kbsearch.records import Kind, Record, RecordHead
from kbsearch.search import SearchMode, search
from kbsearch.search.filed_news import filed_under
from kbsearch.store import Store

QUERY = "按请求长度动态切换批处理策略的调度器"
# The section's own words: the query asks for the section.
HELD = "静态批处理 批大小"
# The section's figure, asked for in the other language: its own words cannot hold the whole query.
FIGURED = "production batch size fixed at 32 requests"
# marker in the text → the cosine its record has with the query
COSINES = {"静态批处理": 0.62, "Tallow": 0.55, "Quern": 0.50, "Marl": 0.30, "Sorrel": 0.40}

SECTION = ("§2.1 批处理调度", "生产集群目前用静态批处理，批大小固定为 32。")
FILED = ("Tallow — a scheduler switching batching policy by request length", "Tallow picks a policy per batch.")
# Another item of the topic, filed under another section: it ranks at its own score.
ELSEWHERE = ("Quern prefill disaggregation", "Quern splits prefill and decode across pools.")
FAR = ("Marl batching notes", "Marl compares batching policies on one GPU.")
# News stating the figure it replaces, at a cosine that keeps it below the section even so.
REPLACING = ("Sorrel adaptive batching", "Sorrel sizes each batch by queue depth instead of a fixed 32.")
FILLER = [("数据加载流水线的预取", "训练时的数据加载与预取流水线"), ("Tokenizer audit", "an audit of merges")]


def doc_section(id: str, title: str, text: str, day: int) -> Record:
    return Record(
        id=id, kind=Kind.doc_section, title=title, text=text, date=dt.date(2026, 10, day), topic="serving", position=0
    )


def filed(record: Record, section: str) -> Record:
    return record.model_copy(update={"section": section, "topic": "serving"})


def steered() -> SteeredEncoder:
    return SteeredEncoder((QUERY, HELD, FIGURED), COSINES)


def kb(tmp_path: Path, *, section_day: int = 1, tallow_section: str = "serving.md §2.1") -> Store:
    records = [increment(f"spark/f{i}", *FILLER[i % len(FILLER)], i) for i in range(20)]
    records += [doc_section("doc/serving#§2.1", *SECTION, section_day)]
    records += [filed(increment("ned/tallow", *FILED, 5, "ned"), tallow_section)]
    records += [filed(increment("ivy/quern", *ELSEWHERE, 6, "ivy"), "§3 预填充")]
    return store_of(tmp_path, records, steered())


def ids(store: Store, query: str = QUERY) -> list[str]:
    return [h.id for h in search(store, steered(), query, 5, mode=SearchMode.hybrid).results]


def test_news_filed_under_a_section_is_listed_above_it(tmp_path: Path) -> None:
    # Without the rule the section leads at its higher cosine and the news follows it.
    assert ids(kb(tmp_path))[:3] == ["ned/tallow", "doc/serving#§2.1", "ivy/quern"]


def test_a_section_holding_the_whole_query_keeps_its_place(tmp_path: Path) -> None:
    assert ids(kb(tmp_path), HELD)[:2] == ["doc/serving#§2.1", "ned/tallow"]


def test_a_section_holding_the_figures_asked_for_keeps_its_place(tmp_path: Path) -> None:
    # The query gives the section's batch size; the news filed under it states no figure of the query.
    assert ids(kb(tmp_path), FIGURED)[:2] == ["doc/serving#§2.1", "ned/tallow"]


def test_news_holding_the_figures_asked_for_is_still_listed_above(tmp_path: Path) -> None:
    # The news states the batch size it replaces: it holds the query's figure as the section does.
    records = [increment(f"spark/f{i}", *FILLER[i % len(FILLER)], i) for i in range(20)]
    records += [doc_section("doc/serving#§2.1", *SECTION, 1)]
    records += [filed(increment("ned/sorrel", *REPLACING, 5, "ned"), "§2.1")]
    records += [filed(increment("ivy/quern", *ELSEWHERE, 6, "ivy"), "§3")]
    found = ids(store_of(tmp_path, records, steered()), FIGURED)
    assert found.index("ned/sorrel") < found.index("doc/serving#§2.1")


def test_news_filed_under_a_subsection_is_listed_above_the_parent(tmp_path: Path) -> None:
    assert ids(kb(tmp_path, tallow_section="§2.1.3 长度感知"))[:2] == ["ned/tallow", "doc/serving#§2.1"]


def test_a_section_written_after_the_news_keeps_its_place(tmp_path: Path) -> None:
    # Dated the day after the news, the section may hold it already.
    assert ids(kb(tmp_path, section_day=7))[:2] == ["doc/serving#§2.1", "ned/tallow"]


def test_news_filed_elsewhere_is_not_lifted(tmp_path: Path) -> None:
    assert ids(kb(tmp_path, tallow_section="§2.10 其他"))[:2] == ["doc/serving#§2.1", "ned/tallow"]


def test_news_beyond_the_best_three_is_not_lifted(tmp_path: Path) -> None:
    records = [increment(f"spark/f{i}", *FILLER[i % len(FILLER)], i) for i in range(20)]
    records += [doc_section("doc/serving#§2.1", *SECTION, 1)]
    records += [filed(increment("ivy/quern", *ELSEWHERE, 6, "ivy"), "§3")]
    records += [increment("kai/tallow", *FILED, 7, "kai"), filed(increment("ned/marl", *FAR, 8, "ned"), "§2.1")]
    found = ids(store_of(tmp_path, records, steered()))
    assert found[0] == "doc/serving#§2.1" and found.index("ned/marl") > 2


def head(id: str, kind: Kind, section: str | None, topic: str | None = "retrieval") -> RecordHead:
    return RecordHead(id=id, kind=kind, section=section, topic=topic)


def test_which_section_an_increment_is_filed_under() -> None:
    section = head("doc/retrieval#§3.2", Kind.doc_section, "§3 RAG > §3.2 混合检索")
    parent = head("doc/retrieval#§3", Kind.doc_section, "§3 RAG")
    for written in ("§3.2", "retrieval.md §3.2", "§3.2 混合检索", "retrieval.md §3.2.1"):
        news = head("ned/x#1", Kind.increment, written)
        assert filed_under(news, section) and filed_under(news, parent)
    # Another number, a number only starting alike, a sibling's parent, another doc named or another topic.
    for written, topic in (
        ("§3.1", "retrieval"),
        ("§3.20", "retrieval"),
        ("§3", "retrieval"),
        ("policy.md §3.2", "retrieval"),
        ("§3.2", "policy"),
    ):
        assert not filed_under(head("ned/x#1", Kind.increment, written, topic), section)
    assert not filed_under(head("ned/x#1", Kind.increment, None), section)
    # A doc named by its file wins over the increment's topic (an "infra" writer filing under engineering.md).
    engineering = head("doc/engineering#§1", Kind.doc_section, "§1 并行策略", "engineering")
    assert filed_under(head("uma/x#1", Kind.increment, "engineering.md §1", "infra"), engineering)
