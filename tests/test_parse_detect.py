"""Format detection, reading and folder walking (the fuzz tests are in test_fuzz.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.files import write

from kbsearch.errors import KbError
from kbsearch.parse import iter_input_files, parse_file

BRIEFING = "inference · E1 预消化简报(2026-09-19)\n增量 1：标题（⭐⭐）\n要点：- a - b\n"


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
        "notes.rst",
        "corpus/a/c.txt",
        "corpus/a/y.json",
        "corpus/a/z.jsonl",
        "corpus/b.md",
        "corpus/noext",
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
