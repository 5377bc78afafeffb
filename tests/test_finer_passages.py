"""A claim restating one sentence or clause of a record is known from it (a new user's probe, 6 December).

A record's stored passages are its title, its whole text and its key points. A living-doc
section under 300 characters has no sentence passage, so "显存减少 7.1x" and "精度损失小于
0.5 分", two 要点 restating the section's line on the item's paper, were both NEW "new
numbers" (the section was not even among the claims' nearest passages), while the same
facts packed in one 要点 were a DUPLICATE of the section. "吞吐仅下降 12%" was NEW beside a
same-item key point "… 降到 4 张 H100，吞吐下降 12%", and a short card's results line was
weighed only inside the card's whole text. ``dedupe.finer`` reads those sentences and clauses
for a claim the stored passages leave new."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from support.checking import check_one, said_by

from fake_encoder import FakeEncoder
from kbsearch.dedupe.claims import PassageReader
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.finer import FinerPassages, finer_said, finer_texts
from kbsearch.dedupe.results import ClaimStatus, ItemResult, Verdict
from kbsearch.dedupe.rules import Embedded
from kbsearch.records import Kind, Record

SECTION = Record(
    id="doc/serving#§2.4",
    kind=Kind.doc_section,
    title="§2.4 缓存",
    text=(
        "- 布局：Lumen（arXiv:2601.11111）按行块重排缓存，读取带宽下降约 35%。\n"
        "- 压缩：Pebble（arXiv:2601.22222）以 3-bit 量化缓存，长序列下内存减少 6.4x，得分损失小于 0.3 分。"
    ),
    arxiv_ids=["2601.11111", "2601.22222"],
    date=dt.date(2026, 11, 2),
)
OTHER = Record(id="ann/x#1", kind=Kind.increment, title="GPU 健康检查", text="每卡步时告警")


def lexical_said() -> DedupeConfig:
    """A claim_said form that says a passage states a claim when they share most of their words
    (lexical overlap 0.6 or more): a whole text or a packed key point shares too few with a claim
    restating one clause of it."""
    return said_by("lexical")


def check(tmp_path: Path, stored: list[Record], item: Record) -> ItemResult:
    return check_one(tmp_path, stored, item, lexical_said())


def increment(claims: list[str], ids: list[str], who: str = "jay", day: int = 9) -> Record:
    return Record(
        id=f"{who}/2026-11-0{day}#1", kind=Kind.increment, instance=who, date=dt.date(2026, 11, day),
        title="Pebble：3-bit 量化缓存", text="", claims=claims, arxiv_ids=ids,
    )  # fmt: skip


def test_claims_restating_the_section_line_on_the_item_are_known_from_it(tmp_path: Path) -> None:
    item = check(
        tmp_path, [SECTION, OTHER], increment(["长序列下内存减少 6.4x", "得分损失小于 0.3 分"], ["2601.22222"])
    )
    assert [(c.known, c.best_id, c.new_numbers) for c in item.claims] == [(True, SECTION.id, [])] * 2
    assert item.verdict is Verdict.DUPLICATE
    assert item.reason.startswith("both claims are known: doc/serving#§2.4 states them")


def test_only_the_section_sentences_naming_the_item_count(tmp_path: Path) -> None:
    """Lumen's 35% in the same section is no figure of Pebble's."""
    item = check(tmp_path, [SECTION, OTHER], increment(["读取带宽下降约 35%"], ["2601.22222"]))
    [claim] = item.claims
    assert not claim.known and item.verdict is Verdict.NEW


TOM = Record(
    id="tom/2026-11-03#4", kind=Kind.increment, instance="tom", date=dt.date(2026, 11, 3),
    title="Pebble — 3-bit 量化缓存", text="",
    claims=["核心：按组量化缓存，无需重新训练模型", "效果：推理从 8 张 H100 降到 4 张 H100，吞吐下降 12%"],
    arxiv_ids=["2601.22222"],
)  # fmt: skip


def test_a_claim_restating_one_clause_of_a_same_item_key_point_is_known(tmp_path: Path) -> None:
    item = check(tmp_path, [TOM, OTHER], increment(["吞吐下降 12%", "吞吐下降 15%"], ["2601.22222"]))
    same, changed = item.claims
    assert same.known and same.best_id == TOM.id and same.best_text == "吞吐下降 12%"
    assert not changed.known and changed.new_numbers == ["15%"]
    assert item.verdict is Verdict.UPDATE


def test_a_claim_of_words_alone_is_not_read_against_clauses_of_a_same_item_record() -> None:
    """Only a claim with a figure the clause states, or a fragment (probe 23: "Keyed by
    content hash" beside "…缓存 embedding 向量，按内容哈希索引" was new at 0.03): a record's
    clause rewords most sentence-long claims of the same paper, new ones too (a method
    beside a summary in the dev digests)."""
    encoder = FakeEncoder()
    said = lexical_said().claim_said
    assert said is not None
    finer = FinerPassages(encoder), PassageReader(None, None), said, False
    same = [Embedded(TOM, encoder.encode(TOM.passages()))]
    cases = (("按组量化缓存，无需重新训练模型", False), ("无需重新训练模型", True), ("吞吐下降 12%", True))
    for claim, known in cases:
        shown = ClaimStatus(text=claim, known=False, score=0.0, threshold=0.5)
        assert finer_said(claim, encoder.encode([claim])[0], shown, same, [], finer).known is known


def test_a_short_cards_results_line_is_read_on_its_own(tmp_path: Path) -> None:
    """Under 300 characters without 要点, the card's only body passage is its whole text."""
    card = Record(
        id="card/3001", kind=Kind.paper_card, title="Pebble: 3-bit Grouped Cache Quantization",
        text=(
            "按组量化缓存，无需重新训练。\n## 结果\n- 在 Llama-3.1-70B 上，四卡 H100 端到端解码加速 2.8x\n"
            "- 平均接受率 0.82，高于基线的 0.74\n- 长序列下内存减少 6.4x，得分损失小于 0.3 分"
        ),
        arxiv_ids=["2601.22222"], date=dt.date(2026, 11, 3),
    )  # fmt: skip
    claim = "Llama-3.1-70B 上，四卡 H100 端到端解码加速 2.8x"
    assert card.passages() == [card.title, card.embed_text()]
    item = check(tmp_path, [card, OTHER], increment([claim], ["2601.22222"]))
    assert item.claims[0].known and item.claims[0].best_id == card.id


def test_a_one_line_summary_beside_key_points_is_not_read() -> None:
    """The dev digests' shape (a TLDR line, key points): only the key points' clauses."""
    record = Record(id="a", kind=Kind.increment, text="一句话总结：吞吐提升 3 倍。", claims=TOM.claims[:1])
    assert finer_texts(record, record.passages()) == [
        "按组量化缓存",
        "按组量化缓存，无需重新训练模型",
        "无需重新训练模型",
    ]


def test_a_section_figure_of_other_hardware_is_shown_but_leaves_the_claim_new(tmp_path: Path) -> None:
    """Probe 8, #3: the section's 6.4x is on H100; the claim's on H200 is new, shown beside
    the section's sentence (it was "the nearest, 0.00" with no passage)."""
    on_h100 = SECTION.model_copy(update={"text": SECTION.text.replace("长序列下", "在 H100 上长序列下")})
    item = check(tmp_path, [on_h100, OTHER], increment(["在 H200 上长序列下内存减少 6.4x"], ["2601.22222"]))
    [claim] = item.claims
    assert not claim.known and claim.new_numbers == ["6.4x"] and item.verdict is Verdict.NEW
    assert claim.best_id == SECTION.id and claim.score >= claim.threshold and "H100" in (claim.best_text or "")


def test_a_fragment_is_at_most_six_words_a_chinese_character_counting_half() -> None:
    from kbsearch.dedupe.finer import fragment

    assert fragment("Keyed by content hash") and fragment("按内容哈希索引")
    assert not fragment("The authors evaluated three GraphRAG methods with their framework")
    assert not fragment("按组量化缓存，无需重新训练模型")  # seven words
