"""Increment header lines: what of the header is the writer's novelty marker
(anchor), and what is the title's prose."""

from __future__ import annotations

import pytest

from kbsearch.parse.increment import read_header


@pytest.mark.parametrize(
    "line",
    [
        "增量 3【KV Cache · §1.3 补强】🟡 KVBoost — 前缀缓存冷热分层插件，新增 SGLang 后端 ★★★",
        "增量 1：首次支持 FP8 的 KV 压缩（⭐⭐⭐）",
        "增量 2：GPU 作业健康检查新增按 rank 的 step 时间告警（⭐⭐⭐）",
        "增量 2：Idea (新增 SGLang 后端) ★",
    ],
)
def test_a_marker_word_in_the_titles_prose_is_no_anchor(line: str) -> None:
    header = read_header(line)
    assert header is not None and header.anchor is None


@pytest.mark.parametrize(
    ("line", "anchor"),
    [
        ("增量 1【KV Cache · §3.3 首次锚入】🟢 C²KV — 可压缩的 KV Cache 复用 ★★★", "首次锚入"),
        ("增量 2：**Second idea**（本次新增，⭐⭐）", "本次新增"),
        ("增量 2：Idea【本次新增】 ★", "本次新增"),
        ("增量 2【工程】Idea （新增）", "新增"),
    ],
)
def test_a_marker_in_the_headers_brackets_or_as_a_tag_is_the_anchor(line: str, anchor: str) -> None:
    header = read_header(line)
    assert header is not None and header.anchor == anchor
