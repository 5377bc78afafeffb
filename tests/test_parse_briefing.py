"""E1 briefings in both layouts: the real seeds (when beside the project) and
the project's own fixtures give the same parse; inline texts cover variants."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from support.briefings import LAYOUT_0826, LAYOUT_0919, Briefing
from support.files import write

from kbsearch.errors import KbError
from kbsearch.parse import parse_file
from kbsearch.parse.briefing import NO_DATE, NO_WRITER
from kbsearch.records import Kind, ParsedFile


@pytest.fixture(params=LAYOUT_0919)
def b0919(request: pytest.FixtureRequest) -> tuple[Briefing, ParsedFile]:
    briefing: Briefing = request.param
    return briefing, parse_file(briefing.path)


@pytest.fixture(params=LAYOUT_0826)
def b0826(request: pytest.FixtureRequest) -> ParsedFile:
    briefing: Briefing = request.param
    return parse_file(briefing.path)


# --- 2026-09-19: the 增量 N：Title（⭐⭐⭐） layout --------------------------------------


def test_0919_has_five_increments_with_titles_and_stars(b0919: tuple[Briefing, ParsedFile]) -> None:
    _, parsed = b0919
    assert parsed.format == "briefing" and parsed.warnings == []
    records = parsed.records
    assert [r.number for r in records] == [1, 2, 3, 4, 5]
    assert all(r.kind is Kind.increment for r in records)
    keys = ["TriAttention", "No Buffer, No Bottleneck", "TensorRT-LLM DeepSeek-V4", "SGLang 2026", "When2Think"]
    for record, key in zip(records, keys, strict=True):
        assert key in record.title
    assert [r.stars for r in records] == [5, 4, 4, 4, 4]


def test_0919_titles_lose_stars_and_the_trailing_id_block(b0919: tuple[Briefing, ParsedFile]) -> None:
    _, parsed = b0919
    for record in parsed.records:
        assert "⭐" not in record.title and "（）" not in record.title
    when2think = parsed.records[4].title
    assert when2think.startswith("When2Think —") and when2think.endswith("奖励塑形")
    assert "arXiv" not in when2think and "2609" not in when2think
    osdi = parsed.records[1].title
    assert osdi.startswith("No Buffer, No Bottleneck —") and osdi.endswith("卸载")


def test_0919_header_fields(b0919: tuple[Briefing, ParsedFile]) -> None:
    briefing, parsed = b0919
    for record in parsed.records:
        assert record.instance == "tom"
        assert record.date == dt.date(2026, 9, 19)
        assert record.topic == "inference"
        # The source is the resolved path, also when the folder is reached through a link.
        assert record.source == str(briefing.path.resolve())
    assert parsed.records[0].id == briefing.record_id(1)
    assert [r.position for r in parsed.records] == [0, 1, 2, 3, 4]


def test_0919_subject_and_cited_ids(b0919: tuple[Briefing, ParsedFile]) -> None:
    tri, osdi, _, _, when2think = b0919[1].records
    assert when2think.arxiv_ids == ["2609.19671"]
    assert "2609.19499" in when2think.cited_ids and "2609.19671" not in when2think.cited_ids
    assert tri.arxiv_ids == []
    assert {"2609.17652", "2609.18063", "2609.19969"} <= set(tri.cited_ids)
    assert "2608.01526" in osdi.cited_ids and "2608.01526" not in osdi.arxiv_ids


def test_0919_key_points_bullets_and_inline(b0919: tuple[Briefing, ParsedFile]) -> None:
    tri, osdi, _, sglang, when2think = b0919[1].records
    assert len(tri.claims) == 5 and tri.claims[0].startswith("核心技术：")
    assert len(osdi.claims) == 5 and osdi.claims[0].startswith("论文基本信息：")
    assert osdi.claims[4].startswith("⚠️ 待核实")
    assert len(sglang.claims) == 5 and len(when2think.claims) == 5
    # Increment 2 has no 可信度 line: the key point that states it is used instead.
    assert osdi.credibility and osdi.credibility.startswith("高") and "USENIX" in osdi.credibility


def test_0919_other_fields(b0919: tuple[Briefing, ParsedFile]) -> None:
    tri = b0919[1].records[0]
    assert "triattention" in tri.sources[-1]
    assert len(tri.sources) == 3  # one 来源 line listing three sources
    assert tri.credibility and tri.credibility.startswith("高") and "NVIDIA" in tri.credibility
    assert tri.relation and "Fathom" in tri.relation
    assert tri.section and tri.section.startswith("§1.3 KV Cache")
    assert tri.anchor is None
    assert tri.text.split("\n")[0] == tri.claims[0]
    assert tri.text.endswith("可信度：" + tri.credibility)


def test_0919_increments_stop_at_the_next_section(b0919: tuple[Briefing, ParsedFile]) -> None:
    last = b0919[1].records[-1]
    assert "矛盾" not in last.text and last.section and last.section.startswith("§1.2")


def test_0919_id_table_keeps_both_conflicting_rows(b0919: tuple[Briefing, ParsedFile]) -> None:
    briefing, parsed = b0919
    mentions = parsed.id_mentions
    assert len(mentions) == briefing.id_table_rows
    rows = [m for m in mentions if m.arxiv_id == "2607.08057"]
    assert len(rows) == 2
    new, anchored = rows
    assert new.claims_new and new.status == "本次新增" and new.anchored_on is None
    assert not anchored.claims_new and anchored.anchored_on == "9-16" and anchored.status == "9-16锚定"
    unknown = [m for m in mentions if m.arxiv_id is None]
    assert len(unknown) == 1 and unknown[0].title.startswith("No Buffer, No Bottleneck")
    assert all(m.instance == "tom" and m.date == dt.date(2026, 9, 19) for m in mentions)


# --- 2026-08-26: the 增量 N【…】🟢 Title ★★★ layout ------------------------------------


def test_0826_has_five_increments_with_titles_and_stars(b0826: ParsedFile) -> None:
    assert b0826.warnings == []
    keys = ["C²KV", "An Internet for the KV Cache", "Practical Online KV Cache Compaction", "vLLM vs SGLang", "TGI"]
    for record, key in zip(b0826.records, keys, strict=True):
        assert key in record.title
        assert "★" not in record.title and "【" not in record.title and "🟢" not in record.title
    assert b0826.records[0].title.startswith("C²KV —") and b0826.records[0].title.endswith("复用")
    assert [r.stars for r in b0826.records] == [3, 3, 2, 2, 2]


def test_0826_header_fields(b0826: ParsedFile) -> None:
    for record in b0826.records:
        assert (record.instance, record.date, record.topic) == ("tom", dt.date(2026, 8, 26), "inference")


def test_0826_subject_ids_come_from_source_lines(b0826: ParsedFile) -> None:
    ids = [r.arxiv_ids for r in b0826.records]
    assert ids == [["2607.17715"], ["2608.01526"], ["2608.00902"], [], []]


def test_0826_anchor_category_tags(b0826: ParsedFile) -> None:
    assert [r.anchor for r in b0826.records] == ["首次锚入", "首次锚入", "首次锚入", None, None]
    c2kv = b0826.records[0]
    assert c2kv.category == "inference"
    assert c2kv.tags == ["kv-cache", "compression", "rag", "agent", "icl"]
    assert b0826.records[2].category == "inference"  # "inference（邻接）"
    assert len(c2kv.sources) == 2
    assert c2kv.section and c2kv.section.startswith("§3.3")
    tldr, first_point, *_ = c2kv.text.split("\n")
    assert tldr.startswith("C²KV") and "PagedAttention" in tldr and first_point == c2kv.claims[0]


def test_0826_key_points_continue_on_following_lines(b0826: ParsedFile) -> None:
    assert [len(r.claims) for r in b0826.records] == [4, 4, 3, 4, 4]
    bench = b0826.records[3]
    assert bench.claims[0].startswith("吞吐实测") and "~2,786 tok/s" in bench.claims[0]
    assert bench.claims[1].startswith("SGLang") and "shared-prefix" in bench.claims[1]
    assert bench.claims[3].startswith("Schema Overhead") and "+42%" in bench.claims[3]


def test_0826_split_id_table_rows(b0826: ParsedFile) -> None:
    mentions = b0826.id_mentions
    assert [m.arxiv_id for m in mentions] == [
        "2607.17715",
        "2608.01526",
        "2608.00902",
        "2608.19662",
        "2608.19758",
        "2605.19660",
        "2607.28633",
    ]
    assert [m.claims_new for m in mentions] == [True, True, True, False, False, False, False]
    assert mentions[0].title.startswith("C²KV") and mentions[0].status == "首次锚入"
    assert mentions[3].anchored_on == "8-23" and mentions[3].status.startswith("8-23")


# --- variants ---------------------------------------------------------------------------

ASCII_VARIANT = """\
# llm-infra · E1 预消化简报（2026-09-20）
本报告由 Spark 实例自动生成

### 增量 1: Paged KV for agents (⭐⭐⭐)
来源: arXiv:2609.11111
要点:
- first point
- second point | with a pipe
可信度: 中
建议归入章节: §2.1

### 增量 2：**Second idea**（本次新增，⭐⭐）
要点： - a - b - c
与活文档现有脉络的关系：cites 2609.22222

## 三、可引用 arXiv 号列表
| arXiv | 标题 | 状态 |
|---|---|---|
| 2609.11111 | Paged KV | 本次新增 |
| 待核实 | Something | 9-18锚定；keep |
"""


def test_ascii_punctuation_and_heading_prefix(tmp_path: Path) -> None:
    parsed = parse_file(write(tmp_path / "brief.md", ASCII_VARIANT))
    first, second = parsed.records
    assert (first.title, first.stars, first.arxiv_ids) == ("Paged KV for agents", 3, ["2609.11111"])
    assert first.claims == ["first point", "second point | with a pipe"]
    assert (first.credibility, first.section) == ("中", "§2.1")
    assert (first.topic, first.date, first.instance) == ("llm-infra", dt.date(2026, 9, 20), "spark")
    assert second.title == "Second idea" and second.anchor == "本次新增"
    assert second.claims == ["a", "b", "c"] and second.cited_ids == ["2609.22222"]
    assert [(m.arxiv_id, m.claims_new, m.anchored_on) for m in parsed.id_mentions] == [
        ("2609.11111", True, None),
        (None, False, "9-18"),
    ]


def test_instance_from_signature_and_from_inbox_path(tmp_path: Path) -> None:
    body = "topic · E1 预消化简报(2026-09-01)\n增量 1：Idea ★\n要点：x\n"
    signed = parse_file(write(tmp_path / "brief.md", body + "Jay · 2026-09-01 22:20 CST\n"))
    assert signed.records[0].instance == "jay"
    path = write(tmp_path / "inbox/Stephen/2026-09-02-agents-e1prep", "增量 1：Idea ★\n")
    parsed = parse_file(path)
    record = parsed.records[0]
    assert (record.instance, record.date) == ("stephen", dt.date(2026, 9, 2))
    assert record.id == "stephen/2026-09-02-agents-e1prep#1"
    unsigned = parse_file(write(tmp_path / "plain.md", body))
    assert unsigned.records[0].id == "unknown/plain@2026-09-01#1"


def test_one_bad_increment_does_not_lose_the_others(tmp_path: Path) -> None:
    text = "x · E1 预消化简报(2026-09-01)\n增量 1：Good\n要点：a\n增量 2：⭐⭐⭐\n要点：b\n增量 3：Good too\n"
    parsed = parse_file(write(tmp_path / "brief.md", text))
    assert [r.number for r in parsed.records] == [1, 3]
    assert [r.position for r in parsed.records] == [0, 1]
    skipped = [w for w in parsed.warnings if w != NO_WRITER]
    assert len(skipped) == 1 and "line 4" in skipped[0]


def test_repeated_numbers_get_distinct_ids(tmp_path: Path) -> None:
    parsed = parse_file(write(tmp_path / "brief.md", "增量 1：A\n增量 1：B\n"))
    assert [r.id for r in parsed.records] == ["unknown/brief#1", "unknown/brief#1-2"]
    assert any("repeats" in w for w in parsed.warnings)


def test_a_briefing_naming_no_writer_says_so(tmp_path: Path) -> None:
    """Its records would be stored with no instance, and audit could not tell who said them first."""
    body = "x · E1 预消化简报(2026-09-01)\n增量 1：Good\n要点：a\n"
    assert NO_WRITER in parse_file(write(tmp_path / "2026-09-01-tom-inference-e1prep.md", body)).warnings
    signed = parse_file(write(tmp_path / "signed.md", body + "本报告由 Tom 实例自动生成\n"))
    dropped = parse_file(write(tmp_path / "inbox/tom/today.md", body))
    assert NO_WRITER not in signed.warnings + dropped.warnings


def test_invalid_header_date_is_a_warning_saying_what_date_is_used(tmp_path: Path) -> None:
    body = "x · E1 预消化简报(2026-13-45)\n增量 1：A\n"
    parsed = parse_file(write(tmp_path / "brief.md", body))
    assert parsed.records[0].date is None
    assert parsed.warnings[0] == (
        "briefing header has an invalid date: (2026-13-45); its items are undated "
        "(no date read from the file name either)"
    )
    named = parse_file(write(tmp_path / "2026-09-25-tom-x.md", body))
    assert named.records[0].date == dt.date(2026, 9, 25)
    assert named.warnings[0] == (
        "briefing header has an invalid date: (2026-13-45); its items are dated 2026-09-25 from the file name instead"
    )


def test_counts_are_not_increment_headers(tmp_path: Path) -> None:
    text = "x · E1 预消化简报(2026-09-01)\n增量 5 条主线索\n增量条数：5\n增量 1：Real\n"
    assert [r.title for r in parse_file(write(tmp_path / "brief.md", text)).records] == ["Real"]


def test_header_without_increments_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "empty-brief.md", "inference · E1 预消化简报(2026-09-19)\n状态摘要\n- 无\n")
    with pytest.raises(KbError, match=r"empty-brief\.md.*no increments"):
        parse_file(path)


def test_only_untitled_increments_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "untitled.md", "x · E1 预消化简报(2026-09-19)\n增量 1：★★\n")
    with pytest.raises(KbError, match=r"untitled\.md.*no usable increment"):
        parse_file(path)


@pytest.mark.parametrize(
    ("name", "header", "expected"),
    [
        ("2026-09-20-jay-engineering-e1prep.md", "(2026-09-20)", "jay/2026-09-20-jay-engineering-e1prep#1"),
        ("20260920-notes.md", "(2026-09-20)", "jay/20260920-notes#1"),
        ("today.md", "(2026-09-20)", "jay/today@2026-09-20#1"),
        ("today.md", "", "jay/today#1"),
    ],
)
def test_an_id_carries_the_briefing_date_when_its_file_name_does_not(
    tmp_path: Path, name: str, header: str, expected: str
) -> None:
    """Issue 24: one inbox file reused from day to day must not give tomorrow's item yesterday's id."""
    path = write(tmp_path / "inbox" / "jay" / name, f"topic · E1 预消化简报{header}\n增量 1：Idea ★\n要点：x\n")
    assert parse_file(path).records[0].id == expected


@pytest.mark.parametrize(
    "signature",
    [
        "本报告由 Nova 实例自动生成",
        "*本报告由 Nova 实例自动生成 · 2026-09-30 22:20 CST*",
        "Nova · 2026-09-30 22:20 CST",
        "—— Nova",
        "——Nova",
        "— Nova",
        "-- Nova",
        "—— Nova 实例",
        "—— Nova · 2026-09-30 22:20",
    ],
    ids=[
        "signed",
        "signed-in-italics",
        "name-date",
        "dashes",
        "dashes-unspaced",
        "dash",
        "ascii",
        "dashes-instance",
        "dashes-date",
    ],
)
@pytest.mark.parametrize(
    ("last_field", "field", "expected"),
    [
        ("可信度：中", "credibility", "中"),
        ("建议归入章节：§1.3", "section", "§1.3"),
        ("- 最后一点", "claims", ["第一点", "最后一点"]),
    ],
    ids=["after-credibility", "after-section", "after-points"],
)
def test_a_signature_right_under_the_last_increment_is_not_part_of_it(
    tmp_path: Path, signature: str, last_field: str, field: str, expected: object
) -> None:
    """A writer signing with no section between: the signature names the writer, nothing else."""
    text = f"x · E1 预消化简报(2026-09-30)\n增量 1：Idea ★\n要点：\n- 第一点\n{last_field}\n{signature}\n\n"
    record = parse_file(write(tmp_path / "brief.md", text)).records[0]
    assert getattr(record, field) == expected
    assert "Nova" not in record.model_dump_json() and record.instance == "nova"


@pytest.mark.parametrize(
    "last_line",
    ["-- 注：TensorRT-LLM 状态待核实", "--enable-prefix-caching", "TensorRT-LLM —— 待核实", "—— Nova Prime Beta"],
    ids=["dash-note", "flag", "dash-in-sentence", "not-a-bare-name"],
)
def test_a_last_line_with_dashes_that_is_not_a_bare_name_stays_text(tmp_path: Path, last_line: str) -> None:
    """Only dashes and a short name sign; a note, a flag or a sentence is the last field's text."""
    text = f"x · E1 预消化简报(2026-09-30)\n增量 1：Idea ★\n要点：\n- 第一点\n可信度：中\n{last_line}\n"
    record = parse_file(write(tmp_path / "brief.md", text)).records[0]
    assert record.credibility == f"中\n{last_line}" and record.instance is None


@pytest.mark.parametrize(
    ("name", "header", "warned"),
    [
        ("today.md", "", True),
        ("today.md", "(2026-13-45)", True),
        ("today.md", "(2026-09-20)", False),
        ("2026-09-20-jay-engineering-e1prep.md", "", False),
        ("20260920-notes.md", "", False),
        ("notes-2026_09_20.md", "", False),
    ],
)
def test_a_briefing_naming_no_date_says_its_ids_carry_none(
    tmp_path: Path, name: str, header: str, warned: bool
) -> None:
    """A reused inbox file with an undated header gave every day's item 1 the same id, silently."""
    path = write(tmp_path / "inbox" / "jay" / name, f"topic · E1 预消化简报{header}\n增量 1：Idea ★\n要点：x\n")
    parsed = parse_file(path)
    assert (NO_DATE in parsed.warnings) is warned
    if warned:
        assert parsed.records[0].date is None and "@" not in parsed.records[0].id


TWO_COLUMN_TABLE = """\
# ai-industry · E1 预消化简报（2026-11-14）
本报告由 Stephen 实例自动生成

增量 1：Hosting startups sell MoE on one card（⭐⭐）
要点：
- two startups advertise it

四、可引用 arXiv 号列表
| arXiv | {status} |
|---|---|
| 2611.07890 | {first} |
| 2611.01234 | {second} |
"""


def test_a_two_column_id_table_keeps_its_status(tmp_path: Path) -> None:
    text = TWO_COLUMN_TABLE.format(status="状态", first="本次新增", second="11-03锚定")
    parsed = parse_file(write(tmp_path / "brief.md", text))
    assert [(m.arxiv_id, m.status, m.claims_new, m.anchored_on, m.title) for m in parsed.id_mentions] == [
        ("2611.07890", "本次新增", True, None, ""),
        ("2611.01234", "11-03锚定", False, "11-3", ""),
    ]
    assert parsed.warnings == []


def test_the_status_column_is_found_by_its_values_when_its_header_says_nothing(tmp_path: Path) -> None:
    text = TWO_COLUMN_TABLE.format(status="备注", first="补强", second="本次新增")
    parsed = parse_file(write(tmp_path / "brief.md", text))
    assert [m.claims_new for m in parsed.id_mentions] == [False, True]
    text = TWO_COLUMN_TABLE.replace("| {status} |", "| 关系 | 标题 |").replace("| {second} |", "| {second} | B |")
    moved = parse_file(write(tmp_path / "moved.md", text.format(first="本次新增 | A", second="9-16锚定")))
    expected = [(True, None, "A"), (False, "9-16", "B")]
    assert [(m.claims_new, m.anchored_on, m.title) for m in moved.id_mentions] == expected


def test_an_id_table_without_a_status_column_warns_once(tmp_path: Path) -> None:
    text = TWO_COLUMN_TABLE.format(status="备注", first="见上", second="见 §3")
    parsed = parse_file(write(tmp_path / "brief.md", text))
    assert [(m.arxiv_id, m.status, m.claims_new) for m in parsed.id_mentions] == [
        ("2611.07890", "", False),
        ("2611.01234", "", False),
    ]
    [warning] = parsed.warnings
    assert "id table without a status column" in warning and "状态" in warning
