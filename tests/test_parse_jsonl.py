"""Canonical JSONL records: strict structure, forgiving metadata."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from support.files import write, write_jsonl

from kbsearch.errors import KbError
from kbsearch.parse import parse_file
from kbsearch.records import Kind, Record


def test_records_and_defaults(tmp_path: Path) -> None:
    rows = [
        {
            "id": "a",
            "kind": "paper_card",
            "title": "When2Think",
            "date": "2026-09-18",
            "instance": "Tom",
            "arxiv_ids": ["arXiv:2609.19671v2"],
            "tags": ["rl"],
            "topic": "inference",
            "source": "cards/1422.md",
        },
        "",
        {"text": "推测解码 arXiv:2609.15504", "claims": ["x"], "cited_ids": ["2609.19499"], "stars": 3},
    ]
    parsed = parse_file(write_jsonl(tmp_path / "in.jsonl", rows))
    assert parsed.format == "jsonl" and parsed.warnings == []
    first, second = parsed.records
    assert (first.kind, first.date, first.instance) == (Kind.paper_card, dt.date(2026, 9, 18), "tom")
    assert (first.arxiv_ids, first.source, first.position) == (["2609.19671"], "cards/1422.md", 0)
    assert (second.id, second.kind, second.source) == ("in#3", Kind.increment, str(tmp_path / "in.jsonl"))
    assert second.arxiv_ids == ["2609.15504"] and second.claims == ["x"] and second.stars == 3


def test_dumped_records_read_back(tmp_path: Path) -> None:
    record = Record(id="r", kind=Kind.doc_section, title="T", text="body", date=dt.date(2026, 9, 1))
    parsed = parse_file(write_jsonl(tmp_path / "in.jsonl", [record.model_dump(mode="json")]))
    assert parsed.records == [record] and parsed.warnings == []


def test_unknown_keys_and_bad_dates_are_warnings(tmp_path: Path) -> None:
    parsed = parse_file(write_jsonl(tmp_path / "in.jsonl", [{"title": "T", "colour": "red", "date": "2026-13-45"}]))
    assert parsed.records[0].date is None
    assert parsed.warnings == [
        "line 1: ignored unknown keys: colour",
        "line 1: invalid date '2026-13-45'; kept without a date",
    ]


def test_title_control_characters_are_stripped(tmp_path: Path) -> None:
    parsed = parse_file(write_jsonl(tmp_path / "in.jsonl", [{"title": "\x1b[31mRed\x1b[0m\x07  title\n"}]))
    assert parsed.records[0].title == "Red title"


@pytest.mark.parametrize(
    ("rows", "message", "line"),
    [
        ([{"title": "ok"}, "{not json"], "invalid JSON", 2),
        ([{"title": "ok"}, "[1, 2]"], "expected a JSON object", 2),
        ([{"tags": ["x"]}], "neither title nor text", 1),
        ([{"title": 5}], "'title' must be a string", 1),
        ([{"title": "t", "kind": "tweet"}], "field 'kind'", 1),
        ([{"title": "t", "arxiv_ids": 5}], "'arxiv_ids' must be a list", 1),
        ([{"title": "t", "stars": "many"}], "field 'stars'", 1),
    ],
)
def test_structural_errors_refuse_the_file_naming_the_line(
    tmp_path: Path, rows: list[Any], message: str, line: int
) -> None:
    with pytest.raises(KbError) as caught:
        parse_file(write_jsonl(tmp_path / "bad.jsonl", rows))
    assert caught.value.line == line
    assert f"bad.jsonl:{line}:" in str(caught.value) and message in str(caught.value)


def test_duplicate_ids_name_both_lines(tmp_path: Path) -> None:
    rows = [{"id": "x", "title": "a"}, {"title": "b"}, {"id": "x", "title": "c"}]
    path = write_jsonl(tmp_path / "dup.jsonl", rows)
    with pytest.raises(KbError, match=r"dup.jsonl:3: duplicate id 'x' \(first on line 1, again on line 3\)"):
        parse_file(path)


KVSHARE = {
    "id": "feed/0929-1",
    "title": "KVShare：多租户之间安全共享前缀 KV 的隔离方案",
    "text": "公共前缀跨租户共享。相关工作：C²KV（arXiv:2607.17715）讨论过可拼接的压缩 KV 片段，但没有考虑租户隔离。",
    "cited_ids": ["2607.17715"],
}


def test_an_id_it_cites_is_not_one_a_record_is_about(tmp_path: Path) -> None:
    """A cited id found in the text was also taken for the record's subject: check
    called the record the same item as one about that paper (rule shared_id)."""
    record = parse_file(write_jsonl(tmp_path / "feed-2026-09-29.jsonl", [KVSHARE])).records[0]
    assert (record.arxiv_ids, record.cited_ids) == ([], ["2607.17715"])


def test_ids_derived_from_the_text_keep_the_uncited_ones(tmp_path: Path) -> None:
    row = {"title": "KVShare (arXiv:2609.30001)", "text": "builds on 2607.17715", "cited_ids": ["arXiv:2607.17715v2"]}
    record = parse_file(write_jsonl(tmp_path / "in.jsonl", [row])).records[0]
    assert (record.arxiv_ids, record.cited_ids) == (["2609.30001"], ["2607.17715"])


def test_an_id_given_as_both_about_and_cited_is_refused(tmp_path: Path) -> None:
    """A record both about a paper and only citing it contradicts itself: refused, in any form of the id."""
    row = {**KVSHARE, "kind": "increment", "arxiv_ids": ["2607.17715"], "cited_ids": ["arXiv:2607.17715v1"]}
    lines = write_jsonl(tmp_path / "in.jsonl", [{"title": "fine"}, row])
    listed = write(tmp_path / "in.json", json.dumps([row], ensure_ascii=False))
    for path, where in ((lines, "in.jsonl:2: "), (listed, "in.json: item 1: ")):
        with pytest.raises(KbError, match=r"2607\.17715 is in both 'arxiv_ids'") as caught:
            parse_file(path)
        assert where in str(caught.value) and "keep each id in one list" in str(caught.value)
