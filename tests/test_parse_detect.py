"""Format detection, reading and folder walking; no parser lets anything but KbError escape."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbsearch.errors import KbError
from kbsearch.parse import iter_input_files, parse_file, parse_text
from kbsearch.parse.briefing import parse_briefing
from kbsearch.parse.card import parse_card_markdown
from kbsearch.parse.doc import parse_doc
from kbsearch.parse.jsonl import parse_jsonl
from kbsearch.records import ParsedFile

BRIEFING = "inference · E1 预消化简报(2026-09-19)\n增量 1：标题（⭐⭐）\n要点：- a - b\n"


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "content", "fmt"),
    [
        ("b.md", BRIEFING, "briefing"),
        ("b.txt", BRIEFING, "briefing"),
        ("2026-09-18-inference-e1prep", BRIEFING, "briefing"),
        ("headless.md", "增量 1：Only increments\n", "briefing"),
        ("card.markdown", "---\ncard: 1\ntitle: T\n---\nbody\n", "paper_card"),
        ("inference.md", "---\ntitle: doc front matter\n---\n# A\ntext\n", "doc"),
        ("card.json", '{"title": "T", "arxiv_id": "2609.19671"}', "paper_card"),
        ("records.json", '[{"kind": "increment", "title": "T"}]', "jsonl"),
        ("r.jsonl", '{"title": "T"}\n', "jsonl"),
        ("r.txt", '{"title": "T"}\n', "jsonl"),
    ],
)
def test_detection_by_extension_and_content(tmp_path: Path, name: str, content: str, fmt: str) -> None:
    assert parse_file(write(tmp_path / name, content)).format == fmt


def test_bom_and_crlf_are_normalised(tmp_path: Path) -> None:
    path = write(tmp_path / "b.md", b"\xef\xbb\xbf" + BRIEFING.replace("\n", "\r\n").encode())
    record = parse_file(path).records[0]
    assert record.topic == "inference" and record.claims == ["a", "b"]


def test_gb18030_chinese_is_accepted(tmp_path: Path) -> None:
    path = write(tmp_path / "b.md", BRIEFING.encode("gb18030"))
    assert parse_file(path).records[0].title == "标题"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "file is empty"),
        (b"  \n\t\n", "file is empty"),
        (b"abc\x00def", "binary file"),
        ("# 标题\n".encode("utf-16"), "UTF-16"),
        (b"\xfa\xfb latin garbage \xe9", "not valid UTF-8"),
        (b"just some prose, no structure\n", "unrecognised format"),
    ],
)
def test_unreadable_files_name_the_file(tmp_path: Path, content: bytes, message: str) -> None:
    path = write(tmp_path / "input.md", content)
    with pytest.raises(KbError) as caught:
        parse_file(path)
    text = str(caught.value)
    assert "input.md" in text and message in text and "\n" not in text


def test_unrecognised_format_lists_the_supported_ones(tmp_path: Path) -> None:
    with pytest.raises(KbError) as caught:
        parse_file(write(tmp_path / "prose.txt", "hello\n"))
    assert caught.value.hint is not None and "jsonl" in caught.value.hint and "briefings" in caught.value.hint


def test_iter_input_files_walks_sorted_and_skips_hidden(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    for rel in ["b.md", "a/z.jsonl", "a/y.json", "noext", ".hidden.md", ".git/x.md", "img.png", "a/c.txt"]:
        write(root / rel, "x")
    explicit = write(tmp_path / "notes.rst", "x")
    found = iter_input_files([explicit, root, root / "b.md"])
    rel = [str(p.relative_to(tmp_path)) for p in found]
    assert rel == [
        "notes.rst", "corpus/a/c.txt", "corpus/a/y.json", "corpus/a/z.jsonl", "corpus/b.md", "corpus/noext",
    ]


def test_iter_input_files_survives_symlink_loops(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    write(root / "sub/a.md", "x")
    os.symlink(root, root / "sub" / "loop")
    os.symlink(root / "missing", root / "dangling.md")
    os.symlink(root / "self.md", root / "self.md")
    # The folder loop is walked once; the broken link and the looping one are
    # listed so that parse_file reports them instead of dropping them silently.
    assert iter_input_files([root]) == [root / "dangling.md", root / "self.md", root / "sub" / "a.md"]
    with pytest.raises(KbError, match="broken symlink"):
        parse_file(root / "dangling.md")
    with pytest.raises(KbError, match="symlink loop"):
        parse_file(root / "self.md")


def test_missing_path_and_empty_folder_are_refused_by_name(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    write(empty / "photo.png", b"\x89PNG")
    listed = iter_input_files([tmp_path / "nowhere.md", empty])
    assert listed == [tmp_path / "nowhere.md", empty]
    with pytest.raises(KbError) as caught:
        parse_file(listed[0])
    assert "nowhere.md" in str(caught.value) and "no such file" in str(caught.value) and caught.value.hint
    with pytest.raises(KbError, match="folder holds no file kbsearch reads"):
        parse_file(empty)


# --- nothing but KbError escapes ------------------------------------------------------

FRAGMENTS = [
    "增量 1：", "增量 2【KV · §3.3 首次锚入】🟢 ", "### 增量 3: ", "要点：", " - ", "- ", "|",
    "| 2607.17715 |", "2607.17715 |", "待核实", "9-16锚定", "★★", "⭐", "（arXiv 2609.19671，⭐⭐）",
    "来源：", "可信度：", "主分类： a；副分类： b", "TLDR（来源：x）：", "三、可引用 arXiv 号列表\n",
    "E1 预消化简报(2026-13-45)", "执行： Tom", "---\n", "card: 1\n", "title: [", "# ", "## §1.2 ",
    "```\n", "{", "}", '"title"', ":", "[", "]", "\n", "\x00", "\x1b[31m", "\r",
]
TEXT = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), max_size=40).map("".join)
PARSERS: list[Callable[[str, Path], ParsedFile]] = [
    parse_briefing, parse_card_markdown, parse_doc, parse_jsonl, parse_text,
]


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_text_parsers_raise_only_kberror(text: str) -> None:
    for parser in PARSERS:
        try:
            parsed = parser(text, Path("inbox/tom/2026-09-19-x.md"))
        except KbError:
            continue
        assert parsed.records, parser.__name__


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.one_of(st.binary(max_size=200), TEXT.map(lambda t: t.encode("utf-8", "surrogatepass"))),
       suffix=st.sampled_from([".md", ".json", ".jsonl", ".txt", ""]))
def test_parse_file_raises_only_kberror(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"input{suffix}"
        path.write_bytes(data)
        try:
            parse_file(path)
        except KbError as err:
            assert "input" in str(err)


@settings(max_examples=150, deadline=None)
@given(value=st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["id", "kind", "title", "text", "date", "arxiv_ids", "tags", "card", "arxiv", "stars",
                         "claims", "instance", "body", "x"]), inner, max_size=5),
    max_leaves=12,
))
def test_json_values_raise_only_kberror(value: object) -> None:
    text = json.dumps(value)
    for name, parse in [("a.json", parse_file), ("a.jsonl", parse_file)]:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / name
            path.write_text(text, encoding="utf-8")
            with contextlib.suppress(KbError):
                parse(path)
