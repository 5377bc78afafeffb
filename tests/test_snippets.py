"""A snippet is one line of a record's text: what only makes sense across
lines (a markdown heading's marks) must not show up inside it as noise."""

from __future__ import annotations

from kbsearch.text.snippet import make_snippet


def shown(text: str, terms: list[str]) -> str:
    return "".join(span.text for span in make_snippet(text, terms, width=400))


def test_a_heading_reads_as_a_label_without_its_marks() -> None:
    card = "NDCG@5 为 0.71。\n\n## 问题\nRAG 段落反复 prefill\n### Results ##\n4x smaller"
    assert shown(card, ["RAG"]) == "NDCG@5 为 0.71。 问题: RAG 段落反复 prefill Results: 4x smaller"


def test_a_heading_that_ends_in_a_colon_gets_no_second_one_and_a_hashtag_is_text() -> None:
    assert shown("## 结论：\n好\n#hashtag 不是标题", []) == "结论： 好 #hashtag 不是标题"


def test_matches_are_marked_in_the_label_as_in_the_text() -> None:
    spans = make_snippet("## Method\nTriAttention compresses", ["method"])
    assert [s.text for s in spans if s.match] == ["Method"]
