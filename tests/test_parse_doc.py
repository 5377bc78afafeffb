"""Living documents: one record per section with text."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_ids_use_section_numbers_else_positions(doc: list) -> None:
    assert [r.id.removeprefix("doc/inference#") for r in doc] == ["s0", "§1.1", "§1.3", "s3", "s4"]


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
