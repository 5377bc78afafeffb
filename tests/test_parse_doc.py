"""Living documents: one record per section with text."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import EXAMPLES

from kbsearch.errors import KbError
from kbsearch.parse import parse_file
from kbsearch.records import Kind

DOC = """\
# inference 活文档

> 维护说明

## §1 推理引擎

### §1.1 框架格局

vLLM 与 SGLang（arXiv:2606.01927）。

### §1.3 KV Cache

- Fathom（arXiv:2609.17652）

#### 备注

```
# not a heading inside a fence
```

## 附录

### 术语

KV = key/value.
"""


@pytest.fixture
def doc(tmp_path: Path) -> list:
    path = tmp_path / "inference.md"
    path.write_text(DOC, encoding="utf-8")
    return parse_file(path).records


def test_sections_with_text_become_records(doc: list) -> None:
    assert [r.title for r in doc] == ["inference 活文档", "§1.1 框架格局", "§1.3 KV Cache", "备注", "术语"]
    assert all(r.kind is Kind.doc_section and r.topic == "inference" for r in doc)
    assert [r.position for r in doc] == [0, 1, 2, 3, 4]


def test_section_paths_skip_the_document_title(doc: list) -> None:
    assert doc[2].section == "§1 推理引擎 > §1.3 KV Cache"
    assert doc[3].section == "§1 推理引擎 > §1.3 KV Cache > 备注"
    assert doc[4].section == "附录 > 术语"


def test_ids_use_section_numbers_else_heading_slugs(doc: list) -> None:
    assert [r.id.removeprefix("doc/inference#") for r in doc] == ["inference-活文档", "§1.1", "§1.3", "备注", "术语"]


def test_text_excludes_subsections_and_fenced_hashes_stay_text(doc: list) -> None:
    assert doc[2].text == "- Fathom（arXiv:2609.17652）"
    assert "# not a heading inside a fence" in doc[3].text


def test_ids_in_a_section_are_its_subject(doc: list) -> None:
    assert doc[1].arxiv_ids == ["2606.01927"] and doc[2].arxiv_ids == ["2609.17652"]
    assert doc[1].cited_ids == []


def test_repeated_section_numbers_stay_unique(tmp_path: Path) -> None:
    path = tmp_path / "d.md"
    path.write_text("## §2 A\nx\n## §2 B\ny\n", encoding="utf-8")
    assert [r.id for r in parse_file(path).records] == ["doc/d#§2", "doc/d#§2-2"]


def test_headings_without_text_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "hollow.md"
    path.write_text("# A\n\n## B\n", encoding="utf-8")
    with pytest.raises(KbError, match=r"hollow\.md.*no section with text"):
        parse_file(path)


@pytest.mark.parametrize(
    "line",
    [
        "> 维护：E2 晚间接力 · 最后更新：2026-09-18 · 只收已入库条目",
        "最近更新 2026年9月18日",
        "*Last updated: 2026-09-18*",
        "Last updated on 2026/9/18.",
        "_Updated: 2026-09-18_",
    ],
)
def test_the_last_updated_date_dates_every_section(tmp_path: Path, line: str) -> None:
    """The doc's last-updated date is each section's date: written no later than that day."""
    path = tmp_path / "inference.md"
    path.write_text(DOC.replace("> 维护说明", line), encoding="utf-8")
    assert {r.date for r in parse_file(path).records} == {dt.date(2026, 9, 18)}


def test_front_matter_and_the_latest_of_several_dates(tmp_path: Path) -> None:
    path = tmp_path / "inference.md"
    path.write_text("---\nupdated: 2026-09-10\n---\n" + DOC.replace("> 维护说明", "最后更新：2026-09-18"), "utf-8")
    assert {r.date for r in parse_file(path).records} == {dt.date(2026, 9, 18)}


def test_a_doc_without_a_date_is_undated_and_dates_in_its_text_are_not_its_date(doc: list) -> None:
    assert {r.date for r in doc} == {None}
    path = Path(doc[0].source or "")
    path.write_text(DOC.replace("KV = key/value.", "TriAttention was merged into TensorRT-LLM on 2026-08-04."), "utf-8")
    assert {r.date for r in parse_file(path).records} == {None}


def test_an_impossible_last_updated_date_is_warned_of(tmp_path: Path) -> None:
    path = tmp_path / "inference.md"
    path.write_text(DOC.replace("> 维护说明", "最后更新：2026-13-45"), encoding="utf-8")
    parsed = parse_file(path)
    assert {r.date for r in parsed.records} == {None}
    assert parsed.warnings == ["last-updated date 2026-13-45 is not a day; the sections are stored undated"]


def test_the_example_doc_is_dated_by_its_last_update() -> None:
    doc = EXAMPLES / "docs" / "inference.md"  # "最后更新：2026-09-18"
    assert {r.date for r in parse_file(doc).records} == {dt.date(2026, 9, 18)}


@pytest.mark.parametrize("line", ["Last updated: 2026-09-18", "> *最后更新：2026-09-18*", "最近更新 2026年9月18日\n"])
def test_a_title_over_the_date_alone_is_no_record_and_the_other_ids_stay(tmp_path: Path, line: str) -> None:
    """A probe's ``search "agent memory"`` ranked such a preamble fifth: a
    title and a date, nothing to find. The sections after it keep their ids
    and places."""
    path = tmp_path / "inference.md"
    path.write_text(DOC.replace("> 维护说明", line), encoding="utf-8")
    records = parse_file(path).records
    assert [r.id.removeprefix("doc/inference#") for r in records] == ["§1.1", "§1.3", "备注", "术语"]
    assert [r.position for r in records] == [1, 2, 3, 4]
    assert {r.date for r in records} == {dt.date(2026, 9, 18)}


def test_a_title_over_the_date_and_some_words_stays(tmp_path: Path) -> None:
    path = tmp_path / "inference.md"
    path.write_text(DOC.replace("> 维护说明", "Last updated: 2026-09-18\n\nOnly accepted items."), encoding="utf-8")
    assert parse_file(path).records[0].id == "doc/inference#inference-活文档"
    # The example doc's preamble is one metadata line (维护 … · 最后更新 … · 只收 …): no record
    # (test_doc_preamble), its id named for ingest to drop.
    assert EXAMPLES.joinpath("docs", "inference.md").read_text(encoding="utf-8").count("最后更新") == 1
    example = parse_file(EXAMPLES / "docs" / "inference.md")
    assert example.records[0].id == "doc/inference#§1.1"
    assert example.not_records == ["doc/inference#inference-活文档"]
