"""Fuzzing: arbitrary text and bytes into every parser.

Two promises are checked on every example. Nothing but KbError escapes a
parser. And whatever a parser does return can really be stored: every record
has something to embed, every string encodes as UTF-8 (SQLite and the
content hash need that), and its stored JSON loads back into the same record.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbsearch.errors import KbError
from kbsearch.parse import parse_file, parse_json, parse_text
from kbsearch.parse.briefing import parse_briefing
from kbsearch.parse.card import parse_card_markdown
from kbsearch.parse.common import decode
from kbsearch.parse.doc import parse_doc
from kbsearch.parse.jsonl import parse_jsonl
from kbsearch.records import ParsedFile
from kbsearch.store.sql import load_record

FRAGMENTS = [
    "增量 1：",
    "增量 2【KV · §3.3 首次锚入】🟢 ",
    "### 增量 3: ",
    "要点：",
    " - ",
    "- ",
    "|",
    "| 2607.17715 |",
    "2607.17715 |",
    "待核实",
    "9-16锚定",
    "★★",
    "⭐",
    "（arXiv 2609.19671，⭐⭐）",
    "来源：",
    "可信度：",
    "主分类： a；副分类： b",
    "TLDR（来源：x）：",
    "三、可引用 arXiv 号列表\n",
    "E1 预消化简报(2026-13-45)",
    "执行： Tom",
    "---\n",
    "card: 1\n",
    "title: [",
    "# ",
    "## §1.2 ",
    "```\n",
    "{",
    "}",
    '"title"',
    ":",
    "[",
    "]",
    "\n",
    "\x00",
    "\x1b[31m",
    "\x1b]8;;x\x07",
    "\r",
    "\\ud800",
    '"\\udfff"',
    "9999.99999v0",
    "&a ",
    "*a",
    "!!python/object:os.system ",
    "\u202e",
    "\x9b",
]
TEXT = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), max_size=40).map("".join)
PARSERS: list[Callable[[str, Path], ParsedFile]] = [
    parse_briefing,
    parse_card_markdown,
    parse_doc,
    parse_jsonl,
    parse_json,
    parse_text,
]
# Strings Hypothesis would not make by default: lone surrogates (JSON spells
# them as \ud800 escapes), controls, escapes, bidi overrides.
WILD_TEXT = st.text(st.characters(codec=None, categories=None), max_size=12) | st.sampled_from(
    ["\ud800", "x\udfffy", "\x1b[2J", "\x00", "\u202e", "2026-13-45", "arXiv:2609.19671v2", ""]
)
RECORD_KEYS = [
    "id",
    "kind",
    "title",
    "text",
    "date",
    "arxiv_ids",
    "cited_ids",
    "tags",
    "claims",
    "source",
    "position",
    "number",
    "stars",
    "instance",
    "topic",
    "section",
    "card",
    "arxiv",
    "tldr",
    "body",
    "category",
    "x",
]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | WILD_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(RECORD_KEYS), inner, max_size=6),
    max_leaves=14,
)


def assert_storable(parsed: ParsedFile) -> None:
    assert parsed.records
    for record in parsed.records:
        assert record.passages(), f"{record.id!r} has nothing to embed"
        data = record.stored_json()
        data.encode("utf-8")  # raises on a lone surrogate
        assert record.content_hash
        assert 0 <= record.position < 2**63
        assert load_record(data) == record


def parse_or_refuse(parser: Callable[[str, Path], ParsedFile], text: str, path: Path) -> None:
    try:
        parsed = parser(text, path)
    except KbError:
        return
    assert_storable(parsed)


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_text_parsers_raise_only_kberror(text: str) -> None:
    for parser in PARSERS:
        parse_or_refuse(parser, text, Path("inbox/tom/2026-09-19-x.md"))


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=300))
def test_decode_takes_any_bytes(data: bytes) -> None:
    try:
        text = decode(data, Path("x.md"))
    except KbError as err:
        assert "x.md" in str(err)
        return
    text.encode("utf-8")
    assert "\r" not in text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.one_of(st.binary(max_size=200), TEXT.map(lambda t: t.encode("utf-8", "surrogatepass"))),
    suffix=st.sampled_from([".md", ".json", ".jsonl", ".txt", ""]),
)
def test_parse_file_raises_only_kberror(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"input{suffix}"
        path.write_bytes(data)
        try:
            parsed = parse_file(path)
        except KbError as err:
            assert "input" in str(err)
            return
        assert_storable(parsed)


@settings(max_examples=200, deadline=None)
@given(value=JSON_VALUES, lines=st.integers(1, 3))
def test_json_values_raise_only_kberror(value: object, lines: int) -> None:
    # json.dumps spells lone surrogates as escapes and keeps huge integers:
    # the shapes a buggy pipeline writes.
    text = json.dumps(value, allow_nan=True)
    with tempfile.TemporaryDirectory() as folder:
        for name, content in [("a.json", text), ("a.jsonl", "\n".join([text] * lines))]:
            path = Path(folder) / name
            path.write_text(content, encoding="utf-8", errors="surrogatepass")
            with contextlib.suppress(KbError):
                assert_storable(parse_file(path))


YAML_PIECES = st.sampled_from(
    [
        "card: 1\n",
        "arxiv_id: 2609.19671\n",
        'arxiv_id: "9999.99999v0"\n',
        "title: T\n",
        'title: "\\ud800"\n',
        "tldr: |\n  two\n  lines\n",
        "date: 2026-13-45\n",
        "date: 2026-09-19\n",
        "tags: [a, b]\n",
        "tags: a, b\n",
        "a: &x [1, 2]\n",
        "b: *x\n",
        "tags: *x\n",
        "title: !!python/object/apply:os.system [ls]\n",
        "title: [\n",
        "title: {a: 1}\n",
        "- item\n",
        "? complex\n",
        "instance: Tom\n",
        "id: ''\n",
        "body: text\n",
    ]
)


@settings(max_examples=200, deadline=None)
@given(front=st.lists(YAML_PIECES | WILD_TEXT, max_size=8).map("".join), body=TEXT)
def test_card_front_matter_raises_only_kberror(front: str, body: str) -> None:
    parse_or_refuse(parse_card_markdown, f"---\n{front}\n---\n{body}", Path("card.md"))
