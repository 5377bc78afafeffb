"""Paper cards: markdown with YAML front matter, or JSON."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from support.files import write

from kbsearch.errors import KbError
from kbsearch.parse import parse_file
from kbsearch.parse.card import parse_card_markdown
from kbsearch.records import Kind

CARD = """\
---
card: 1422
arxiv: arXiv:2609.19671v2
title: "When2Think: Difficulty-Aware Length Control"
category: engineering
secondary: [reasoning, length-control]
date: 2026-09-19
tldr: 难度感知的长度控制。
instance: Tom
topic: inference
---

## Method

IDAC scales the length penalty. See also 2609.19499.
"""


def test_markdown_card(tmp_path: Path) -> None:
    parsed = parse_file(write(tmp_path / "card-1422.md", CARD))
    assert parsed.format == "paper_card" and parsed.warnings == []
    (card,) = parsed.records
    assert card.kind is Kind.paper_card
    assert card.id == "card/1422"
    assert card.arxiv_ids == ["2609.19671"] and card.cited_ids == ["2609.19499"]
    assert card.title == "When2Think: Difficulty-Aware Length Control"
    assert (card.card_number, card.category) == ("1422", "engineering")
    assert card.tags == ["reasoning", "length-control"]
    assert (card.date, card.instance, card.topic) == (dt.date(2026, 9, 19), "tom", "inference")
    assert card.text.startswith("难度感知的长度控制。\n## Method\nIDAC")


def test_float_looking_ids_keep_their_digits(tmp_path: Path) -> None:
    text = "---\narxiv_id: 2607.10000\ntitle: T\n---\n"
    assert parse_file(write(tmp_path / "c.md", text)).records[0].arxiv_ids == ["2607.10000"]


def test_id_falls_back_to_card_number_then_stem(tmp_path: Path) -> None:
    numbered = parse_file(write(tmp_path / "a.md", "---\ncard: 7\ntitle: T\n---\nbody\n"))
    assert numbered.records[0].id == "card/7"
    bare = parse_file(write(tmp_path / "b.md", "---\ntldr: only a summary\n---\n"))
    assert bare.records[0].id == "card/b" and bare.records[0].text == "only a summary"
    given = parse_file(write(tmp_path / "c.md", "---\nid: mine\narxiv_id: 2609.19671\ntitle: T\n---\n"))
    assert given.records[0].id == "mine"


def test_title_defaults_to_first_heading(tmp_path: Path) -> None:
    parsed = parse_file(write(tmp_path / "c.md", "---\ncard: 3\n---\n# Heading title\ntext\n"))
    assert parsed.records[0].title == "Heading title"


def test_invalid_date_and_id_keep_the_card_with_a_warning(tmp_path: Path) -> None:
    text = "---\ncard: 1\ntitle: T\ndate: 2026-13-45\narxiv_id: nope\n---\n"
    parsed = parse_file(write(tmp_path / "c.md", text))
    (card,) = parsed.records
    assert card.date is None and card.arxiv_ids == [] and card.id == "card/1"
    assert any("invalid date" in w for w in parsed.warnings)
    assert any("not an arXiv id" in w for w in parsed.warnings)


def test_unknown_keys_are_one_warning(tmp_path: Path) -> None:
    parsed = parse_file(write(tmp_path / "c.md", "---\ncard: 1\ntitle: T\nauthors: x\nurl: y\n---\n"))
    assert parsed.warnings == ["ignored unknown card keys: authors, url"]


def test_json_card_object_and_list(tmp_path: Path) -> None:
    one = {
        "card": 1419,
        "arxiv_id": "2609.17652",
        "title": "Fathom",
        "tags": "kv-cache, lossless",
        "body": "## 方法\n\n拆平面",
    }
    parsed = parse_file(write(tmp_path / "one.json", json.dumps(one, ensure_ascii=False)))
    (card,) = parsed.records
    assert (card.id, card.tags, card.text) == ("card/1419", ["kv-cache", "lossless"], "## 方法\n拆平面")
    many = [{"title": "A"}, {"title": "B", "card": 2}]
    records = parse_file(write(tmp_path / "many.json", json.dumps(many))).records
    assert [(r.id, r.position) for r in records] == [("card/many-1", 0), ("card/2", 1)]


def test_duplicate_ids_in_a_json_list_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "dup.json", json.dumps([{"card": 7, "arxiv_id": "2609.17652", "title": "A"}] * 2))
    with pytest.raises(KbError, match=r"dup.json.*'card/7' in items 1 and 2"):
        parse_file(path)


def test_two_cards_of_one_paper_in_a_list_are_two_records(tmp_path: Path) -> None:
    path = write(tmp_path / "two.json", json.dumps([{"arxiv_id": "2609.17652", "title": "A"}] * 2))
    records = parse_file(path).records
    assert [r.id for r in records] == ["card/two-1", "card/two-2"]
    assert all(r.arxiv_ids == ["2609.17652"] for r in records)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("broken.md", "---\ncard: 1\ntitle: [unclosed\n---\nbody\n", "broken YAML"),
        ("nothing.md", "---\ncard: 1\n---\n\n", "no title, tldr or body"),
        ("typed.md", "---\ncard: 1\ntitle: {a: 1}\n---\n", "'title' must be text"),
        ("items.json", "[1, 2]", "list of objects"),
        ("bad.json", '{"title": ', "invalid JSON"),
    ],
)
def test_card_errors_name_the_file(tmp_path: Path, name: str, text: str, message: str) -> None:
    with pytest.raises(KbError) as caught:
        parse_file(write(tmp_path / name, text))
    assert name in str(caught.value) and message in str(caught.value)


def test_front_matter_must_be_a_mapping(tmp_path: Path) -> None:
    with pytest.raises(KbError, match=r"list\.md.*not a key: value mapping"):
        parse_card_markdown("---\n- card: 1\n---\nbody\n", tmp_path / "list.md")
