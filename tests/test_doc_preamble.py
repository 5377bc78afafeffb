"""A living doc's preamble of nothing but metadata (title, maintainer, last update, scope) is
no record. Probe 14: ``audit`` clustered two docs' "> 维护：… · 最后更新：…" preambles as
one item (same item 1.00). A plain re-ingest drops such a record an older index holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbsearch.parse import parse_file

DOC = """\
# agents 活文档

{preamble}

## §1 记忆

### §1.1 长期记忆

向量库加滚动摘要。
"""


@pytest.mark.parametrize(
    "preamble",
    [
        "> 维护：E2 晚间接力（tom / jay 轮值）· 最后更新：2026-11-08 · 只收已入库条目",
        "> 维护：E2 晚间接力\n> 最后更新：2026-11-08",
        "*Maintainer: the E2 relay | Last updated: 2026-11-08*",
        "Status: draft · Owner: jay",
    ],
)
def test_a_preamble_of_metadata_alone_is_no_record(tmp_path: Path, preamble: str) -> None:
    path = tmp_path / "agents.md"
    path.write_text(DOC.format(preamble=preamble), encoding="utf-8")
    parsed = parse_file(path)
    assert [r.id for r in parsed.records] == ["doc/agents#§1.1"]
    assert parsed.not_records == ["doc/agents#agents-活文档"]


@pytest.mark.parametrize(
    "preamble",
    [
        "> 维护：E2 晚间接力 · 最后更新：2026-11-08\n\n本文档跟踪 Agent 记忆与运行框架。",
        "> 维护：E2 · 最后更新：2026-11-08 · 收录 LongMemEval 得分 60% 以上的系统",
        "> 维护：E2 · 最后更新：2026-11-08 · 起点是 arXiv:2610.12345",
        "本文档跟踪 Agent 记忆。",
    ],
)
def test_a_preamble_stating_content_stays_a_record(tmp_path: Path, preamble: str) -> None:
    path = tmp_path / "agents.md"
    path.write_text(DOC.format(preamble=preamble), encoding="utf-8")
    assert parse_file(path).records[0].id == "doc/agents#agents-活文档"


def test_metadata_lines_of_a_later_section_are_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "agents.md"
    path.write_text(DOC.format(preamble="正文。") + "\n### §1.2 维护\n\n维护：jay\n", encoding="utf-8")
    assert "doc/agents#§1.2" in [r.id for r in parse_file(path).records]


def test_a_plain_ingest_drops_a_stored_preamble_of_metadata(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    doc, index = tmp_path / "agents.md", str(tmp_path / "idx")
    meta = "> 维护：E2 晚间接力 · 最后更新：2026-11-08"
    doc.write_text(DOC.format(preamble=meta + "\n\n本文档跟踪 Agent 记忆。"), encoding="utf-8")
    assert cli("ingest", str(doc), "--index", index)[0] == 0
    assert cli("show", "doc/agents#agents-活文档", "--index", index)[0] == 0
    doc.write_text(DOC.format(preamble=meta), encoding="utf-8")  # as an index built before this rule holds it
    code, out, err = cli("ingest", str(doc), "--index", index)
    assert code == 0 and "1 removed" in out and "no longer in it" not in err
    assert cli("show", "doc/agents#agents-活文档", "--index", index)[0] != 0
    assert cli("show", "doc/agents#§1.1", "--index", index)[0] == 0
