"""The rules of dedupe.py on hand-made records: paper titles, restated cards, numbers."""

from __future__ import annotations

import pytest

from fake_encoder import FakeEncoder
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.rules import Embedded, PassageHit, compare, judge_claim, restates_same_paper
from kbsearch.records import Kind, Record
from kbsearch.textsim import substantive_numbers

ENCODER = FakeEncoder()
CONFIG = DedupeConfig()
SUMMARY = "提出一种面向长上下文推理的KV缓存压缩方法，显著降低显存占用并保持精度。"


def embedded(record_id: str, title: str, text: str, kind: Kind = Kind.paper_card) -> Embedded:
    record = Record(id=record_id, kind=kind, title=title, text=text)
    return Embedded(record, ENCODER.encode(record.passages()))


def never_rare(_: str) -> bool:
    return False


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("收集了41份日志和512条轨迹", {"41", "512"}),
        ("吞吐提升了10.7x，命中率达63.25%。", {"10.7x", "63.25%"}),
        ("加速 2.5 倍, 1,618 tokens", {"2.5x", "1618"}),
        ("训练两个7B参数的模型", {"7b"}),
        ("GPT-4.1 与 ShardBench-2k, Qwen2.5", set()),
        ("2026年3月发布，见第1节", set()),
    ],
)
def test_numbers_are_found_next_to_chinese_and_not_inside_names(text: str, expected: set[str]) -> None:
    assert substantive_numbers(text) == expected


def test_two_cards_with_one_title_are_one_paper_however_they_are_summarised() -> None:
    first = embedded("a", "Paged Prefix Sharing at Scale", "多租户服务中按页共享前缀缓存，降低首字延迟。")
    later = embedded("b", "Paged prefix sharing  at scale", "研究多租户推理中前缀页的复用及其调度。")
    match = compare(later, first, CONFIG, never_rare)
    assert match.same_item and match.reasons == ["paper cards with the same title"]


def test_cards_with_different_titles_are_different_papers_even_with_one_summary() -> None:
    first = embedded("a", "RingKV: Ring Buffers for Multi-Turn KV Reuse", SUMMARY)
    later = embedded("b", "Tidal: Elastic Prefill Scheduling for Long Contexts", SUMMARY)
    match = compare(later, first, CONFIG, never_rare)
    assert match.score + match.lexical >= CONFIG.same_item  # the text rule alone would merge them
    assert not match.same_item and "different titles" in match.reasons[0]


def test_a_revised_title_and_other_kinds_fall_through_to_the_text_rules() -> None:
    first = embedded("a", "Sparse Draft Trees for Speculative Decoding", SUMMARY)
    revised = embedded("b", "Adaptive Sparse Draft Trees for Speculative Decoding", SUMMARY)
    assert compare(revised, first, CONFIG, never_rare).same_item
    increment = embedded("c", "Something else entirely, another title", SUMMARY, kind=Kind.increment)
    assert "titles" not in " ".join(compare(increment, first, CONFIG, never_rare).reasons)


def claim_status(item: Embedded, known: Embedded, claim: str, restatement: bool):  # type: ignore[no-untyped-def]
    vector = ENCODER.encode([claim])[0]
    hits = [PassageHit(known, 0, float(known.vectors[0] @ vector))]
    return judge_claim(claim, vector, hits, [known], CONFIG, restatement)


def test_a_later_card_of_one_paper_only_brings_news_with_a_new_number() -> None:
    first = embedded("a", "FoldKV: Merging Heads for Cheaper Caches", "提出合并注意力头的方法，降低缓存显存。")
    later = embedded("b", "FoldKV: Merging Heads for Cheaper Caches", "合并注意力头比丢弃更稳。")
    assert restates_same_paper(later.record, [first])
    reworded = claim_status(later, first, "合并注意力头比丢弃更稳，适合长上下文推理。", restatement=True)
    assert reworded.known and reworded.score < CONFIG.claim_known_same_item
    numbers = claim_status(later, first, "精度保持96.4%，缓存只剩原来的17.5%。", restatement=True)
    assert not numbers.known and numbers.new_numbers == ["17.5%", "96.4%"]
    as_increment = claim_status(later, first, "合并注意力头比丢弃更稳，适合长上下文推理。", restatement=False)
    assert not as_increment.known


def test_an_increment_is_never_a_restatement_of_a_card() -> None:
    card = embedded("a", "FoldKV: Merging Heads for Cheaper Caches", SUMMARY)
    increment = embedded("b", "FoldKV", SUMMARY, kind=Kind.increment)
    assert not restates_same_paper(increment.record, [card])
    assert not restates_same_paper(card.record, [increment])


# -- a rare name opening both texts ----------------------------------------------

ONLY_NAMES = DedupeConfig(same_item=5.0, shared_lead_name_cosine=0.0)  # no text rule can fire


def always_rare(_: str) -> bool:
    return True


def test_texts_opening_with_one_rare_name_are_one_item() -> None:
    first = embedded("a", "", "FoldKV 合并注意力头，缓存更省。随后给出多组实验。", kind=Kind.increment)
    later = embedded("b", "", "论文提出FoldKV，把相似的注意力头合并。", kind=Kind.increment)
    match = compare(later, first, ONLY_NAMES, never_rare, always_rare)
    assert match.same_item and match.reasons[0].startswith("both open with the name foldkv")
    assert not compare(later, first, ONLY_NAMES, never_rare, never_rare).same_item  # a common name
    assert not compare(later, first, ONLY_NAMES, never_rare).same_item  # no text rarity given
    gated = ONLY_NAMES.model_copy(update={"shared_lead_name_cosine": 1.0})
    assert not compare(later, first, gated, never_rare, always_rare).same_item


def test_a_name_mentioned_later_in_the_text_is_related_work_not_the_subject() -> None:
    subject = embedded("a", "", "FoldKV 合并注意力头，缓存更省。", kind=Kind.increment)
    citing = embedded("b", "", "RingKV 用环形缓冲复用多轮缓存。它与 FoldKV 正交。", kind=Kind.increment)
    assert not compare(citing, subject, ONLY_NAMES, never_rare, always_rare).same_item


def test_text_rarity_counts_records_holding_the_name_in_their_text(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from kbsearch.dedupe.rarity import rare_text_name_test
    from kbsearch.ingest import ingest_records
    from kbsearch.store import ChangeSet, Store

    store = Store.open(tmp_path / "idx", create=True)
    rows = [
        Record(
            id=f"r{i}",
            kind=Kind.increment,
            title="FoldKV in the title only" if i == 0 else f"note {i}",
            text="CoT 推理" if i < 5 else "另一条记录",
        )
        for i in range(8)
    ]
    rows.append(Record(id="named", kind=Kind.increment, title="x", text="RingKV 复用多轮缓存"))
    ingest_records(store, ChangeSet(upserts=rows), model=ENCODER.model_id, load_encoder=lambda: ENCODER)
    assert store.records_holding("cot", "body", 3) == 4  # counted up to the limit + 1
    assert store.records_holding("foldkv", "body", 3) == 0  # titles are not text
    assert store.records_holding("foldkv", "title", 3) == 1
    is_rare = rare_text_name_test(store, DedupeConfig(rare_lead_name_records=3))
    assert is_rare("ringkv") and not is_rare("cot")


def test_title_rarity_counts_titles_up_to_the_larger_of_a_count_and_a_share(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from kbsearch.dedupe.rarity import rare_name_test
    from kbsearch.ingest import ingest_records
    from kbsearch.store import ChangeSet, Store

    store = Store.open(tmp_path / "idx", create=True)
    rows = [Record(id=f"c{i}", kind=Kind.increment, title=f"CoT trick number {i}", text="短文") for i in range(6)]
    rows += [Record(id=f"t{i}", kind=Kind.increment, title=f"TriAttention note {i}", text="CoT") for i in range(2)]
    ingest_records(store, ChangeSet(upserts=rows), model=ENCODER.model_id, load_encoder=lambda: ENCODER)
    is_rare = rare_name_test(store, DedupeConfig(rare_name_min=5, rare_name_share=0.01))
    assert is_rare("triattention") and not is_rare("cot")  # 2 titles against 6 (> 5)
    assert rare_name_test(store, DedupeConfig(rare_name_min=5, rare_name_share=0.8))("cot")  # 6 ≤ 0.8 × 8
