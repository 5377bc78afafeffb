"""Living-doc section ids stay put when other sections are added or removed.

A probe's doc had numbered headings without ``§`` (``### 1.1 Episodic
memory``); they got positional ids, and a line added under an empty parent
heading moved every id after it onto another section."""

from __future__ import annotations

from pathlib import Path

from kbsearch.parse import parse_file

DOC = """\
# agents doc

Last updated: 2026-11-01

## 1 Memory

### 1.1 Episodic memory

Episodes of tool results.

### 1.2 Shared memory

One pool for many agents.

## 2. Evaluation

### 2.1. Benchmarks

Long tasks.

## Glossary

KV: key/value.
"""


def ids(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "agents.md"
    path.write_text(text, encoding="utf-8")
    return {r.id.removeprefix("doc/agents#"): r.title for r in parse_file(path).records}


def test_numbered_headings_without_the_section_sign_take_their_number(tmp_path: Path) -> None:
    assert ids(tmp_path, DOC) == {
        "§1.1": "1.1 Episodic memory",
        "§1.2": "1.2 Shared memory",
        "§2.1": "2.1. Benchmarks",
        "glossary": "Glossary",
    }
    # The same section written with a "§" is the same id.
    assert "§1.1" in ids(tmp_path, DOC.replace("### 1.1 Episodic", "### §1.1 Episodic"))


def test_adding_or_removing_a_section_moves_no_other_id(tmp_path: Path) -> None:
    before = ids(tmp_path, DOC)
    filled = ids(tmp_path, DOC.replace("## 1 Memory\n", "## 1 Memory\n\nHow agents keep state.\n"))
    assert filled == {"§1": "1 Memory", **before}
    inserted = ids(tmp_path, DOC.replace("## Glossary", "## Background\n\nRead first.\n\n## Glossary"))
    assert inserted == {**before, "background": "Background"}
    removed = ids(tmp_path, DOC.replace("### 1.2 Shared memory\n\nOne pool for many agents.\n", ""))
    assert removed == {k: v for k, v in before.items() if k != "§1.2"}


def test_a_repeated_section_number_is_warned_of_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "agents.md"
    path.write_text(DOC.replace("### 1.2 Shared", "### 1.1 Shared"), encoding="utf-8")
    parsed = parse_file(path)
    assert [r.id for r in parsed.records][:2] == ["doc/agents#§1.1", "doc/agents#§1.1-2"]
    assert len(parsed.warnings) == 1
    assert parsed.warnings[0].startswith("line 11: heading '1.1 Shared memory' repeats the id §1.1 of line 7;")


def test_a_repeated_unnumbered_heading_is_named_by_its_parent(tmp_path: Path) -> None:
    text = DOC.replace("Episodes of tool results.\n", "Episodes.\n\n#### Notes\n\nA.\n")
    text = text.replace("Long tasks.\n", "Long tasks.\n\n#### Notes\n\nB.\n")
    got = ids(tmp_path, text)
    assert got["notes"] == "Notes" and got["§2.1/notes"] == "Notes"


def test_a_year_or_a_size_is_no_section_number(tmp_path: Path) -> None:
    got = ids(tmp_path, DOC.replace("## Glossary", "## 2026 outlook\n\nSoon.\n\n## 1.5B models"))
    assert "2026-outlook" in got and "1-5b-models" in got
