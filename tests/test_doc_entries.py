"""What a living-doc section says of a paper is the whole entry naming its id (a new user's probe, 6 December).

Only the first sentence of each of the doc's entries named the paper's arXiv id, and only
that sentence was read as the section's word on it: a briefing restating the entry's other
sentences ("显存减少 5.2 倍", "不支持 SGLang") was NEW with three of four claims new, and a
leaderboard figure verbatim in the entry's second sentence was new. The entry is the list
item or paragraph naming the id, whole; a line on another of the section's papers still
counts for nothing (tests/test_finer_passages.py)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from test_finer_passages import OTHER, check, increment

from kbsearch.dedupe.finer import denies, entries, naming
from kbsearch.dedupe.results import ClaimStatus, Verdict
from kbsearch.records import Kind, Record

SECTION = Record(
    id="doc/serving#§2.4",
    kind=Kind.doc_section,
    title="§2.4 缓存",
    text=(
        "- 压缩：Pebble（arXiv:2601.22222）以 3-bit 分组量化缓存。长序列下内存减少 6.4x，得分损失小于 0.3 分。"
        "目前只有一个推理框架的插件。\n"
        "- 布局：Lumen（arXiv:2601.11111）按行块重排缓存。读取带宽下降约 35%。\n"
        "多数团队仍在观望，吞吐回落约 9%。"
    ),
    arxiv_ids=["2601.11111", "2601.22222"],
    date=dt.date(2026, 11, 2),
)


def test_the_whole_list_item_naming_the_id_is_read_and_nothing_else() -> None:
    cut = naming(SECTION, {"2601.22222"})
    assert cut is not None
    assert cut.text.splitlines() == [
        "压缩：Pebble（arXiv:2601.22222）以 3-bit 分组量化缓存。 长序列下内存减少 6.4x，得分损失小于 0.3 分。"
        " 目前只有一个推理框架的插件。"
    ]
    assert "35%" not in cut.text and "9%" not in cut.text  # Lumen's item, and a paragraph of its own


def test_a_line_wrapped_mid_sentence_continues_its_entry_and_a_heading_naming_the_id_covers_its_entries() -> None:
    assert entries("- Pebble (arXiv:2601.22222) quantizes the cache\nin groups of 64.\nAnother paragraph.") == [
        "- Pebble (arXiv:2601.22222) quantizes the cache in groups of 64.",
        "Another paragraph.",
    ]
    under = "#### Pebble（arXiv:2601.22222）\n内存减少 6.4x。\n得分损失小于 0.3 分。\n#### 其他\n带宽下降 35%。"
    section = SECTION.model_copy(update={"text": under})
    cut = naming(section, {"2601.22222"})
    assert cut is not None and cut.text.splitlines() == ["内存减少 6.4x。", "得分损失小于 0.3 分。"]
    titled = SECTION.model_copy(update={"title": "§2.5 Pebble（arXiv:2601.22222）", "text": "内存减少 6.4x。"})
    assert naming(titled, {"2601.22222"}) is not None


def test_claims_restating_the_later_sentences_of_the_entry_are_known(tmp_path: Path) -> None:
    item = check(
        tmp_path, [SECTION, OTHER], increment(["长序列下内存减少 6.4x", "得分损失小于 0.3 分"], ["2601.22222"])
    )
    assert [(c.known, c.best_id) for c in item.claims] == [(True, SECTION.id)] * 2
    assert item.verdict is Verdict.DUPLICATE


def test_a_figure_of_another_entry_stays_new(tmp_path: Path) -> None:
    for claim in ("读取带宽下降约 35%", "多数团队仍在观望，吞吐回落约 9%"):
        item = check(tmp_path / claim[:4], [SECTION, OTHER], increment([claim], ["2601.22222"]))
        assert not item.claims[0].known and item.verdict is Verdict.NEW


def test_a_claim_that_something_is_not_used_is_not_said_by_a_passage_using_it() -> None:
    def said(text: str) -> ClaimStatus:
        return ClaimStatus(text="x", known=True, score=1.0, threshold=0.5, best_text=text)

    assert denies("评分方式：不使用 LLM-as-judge，全部人工打分", said("评测用 LLM-as-judge 打分，一致率 92%。"))
    assert not denies("评分方式：不使用 LLM-as-judge", said("评测不使用 LLM-as-judge，由人工打分。"))
    assert denies("It no longer uses FlashAttention", said("Built on FlashAttention kernels."))
    assert not denies("目前只有 vLLM 插件，SGLang 尚不支持", said("以 vLLM 插件提供，不支持 SGLang。"))
