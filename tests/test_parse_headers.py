"""Increment header lines: what of the header is the writer's novelty marker
(anchor), what is the title's prose, and a header whose 【 is left open."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.files import write

from kbsearch.parse import parse_file
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


@pytest.mark.parametrize(
    ("line", "title", "anchor"),
    [
        ("增量 3：TreeSpec：树状草稿的投机解码（本次新增，⭐⭐⭐）", "TreeSpec：树状草稿的投机解码", "本次新增"),
        ("增量 2：**Second idea**（本次新增）", "Second idea", "本次新增"),
        ("增量 2【工程】Idea （新增）", "Idea", "新增"),
        ("增量 2：Idea（本次新增、与 §1.5 相关，⭐⭐）", "Idea（与 §1.5 相关）", "本次新增"),
        ("增量 2：Idea (新增 SGLang 后端) ★", "Idea (新增 SGLang 后端)", None),
    ],
)
def test_a_marker_read_as_a_tag_leaves_the_title(line: str, title: str, anchor: str | None) -> None:
    """（本次新增，⭐⭐⭐）: the stars came out of the title and the marker stayed,
    as 'TreeSpec：树状草稿的投机解码（本次新增）'; words of the title's prose stay."""
    header = read_header(line)
    assert header is not None and (header.title, header.anchor) == (title, anchor)


@pytest.mark.parametrize(
    ("line", "title", "section", "anchor"),
    [
        ("增量 1【KV Cache · §1.3 Title text ★★", "Title text", "§1.3", None),
        ("增量 1【KV Cache · §1.3 首次锚入 TriAttention — 频域压缩 ★★★", "TriAttention — 频域压缩", "§1.3", "首次锚入"),
        ("增量 3【工程 · 邻接 🟠 Kubernetes DRA ★", "Kubernetes DRA", None, None),
    ],
)
def test_a_header_bracket_left_open_is_read_as_closed_where_that_can_be_told(
    line: str, title: str, section: str | None, anchor: str | None
) -> None:
    header = read_header(line)
    assert header is not None and (header.title, header.section_hint, header.anchor) == (title, section, anchor)
    assert header.problem is not None and header.problem.startswith("leaves 【 open: read as 【")


def test_a_header_bracket_left_open_where_it_cannot_be_told_keeps_the_title_and_says_so() -> None:
    header = read_header("增量 3【工程 · 邻接 Kubernetes DRA ★")
    assert header is not None and header.title == "【工程 · 邻接 Kubernetes DRA"
    assert header.problem is not None and "cannot be told" in header.problem


def test_a_closed_header_has_no_problem() -> None:
    header = read_header("增量 1【KV Cache · §3.3 首次锚入】🟢 C²KV — 可压缩的 KV Cache 复用 ★★★")
    assert header is not None and header.problem is None


def test_a_briefing_warns_of_a_bracket_left_open_naming_the_line(tmp_path: Path) -> None:
    text = "inference · E1 预消化简报(2026-09-24)\n执行： Nova\n"
    text += "增量 1【KV Cache · §1.3 SlackCache — 分层 KV 缓存 ★★\n要点： - a\n"
    parsed = parse_file(write(tmp_path / "2026-09-24-nova.md", text))
    [record] = parsed.records
    assert (record.title, record.section) == ("SlackCache — 分层 KV 缓存", "§1.3")
    assert parsed.warnings == [
        "line 3: the header of increment 1 leaves 【 open: read as 【KV Cache · §1.3】 (close it with 】)"
    ]
