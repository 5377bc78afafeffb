"""A figure a claim adds to another writer's key point rides on it as detail only when the key
point states its result in words: not when the key point gives that quantity a figure of its
own in another unit, nor when the record measured its figures on other accelerators (probe 14,
KVSwap: "v0.3 在单张 H200 上支持 2M token 上下文" was known from "上下文长度提升 3.6 倍")."""

from __future__ import annotations

from test_claim_said import TOKENS, UNSURE, hits, record

from kbsearch.dedupe.claim_numbers import figure_of_its_own
from kbsearch.dedupe.claims import PassageReader, judge_said
from kbsearch.dedupe.rules import Embedded


def said_by_key_points(claim: str, known: Embedded) -> object:
    """As ``said``, with the record's key points alone as candidates (the search's nearest)."""
    key_points = [h for h in hits(known, claim) if known.is_key_point(h.index)]
    return judge_said(claim, key_points, {known.record.id}, PassageReader(None, TOKENS), UNSURE)


def test_a_figure_of_a_quantity_the_key_point_gives_in_another_unit_is_new() -> None:
    known = record("kv", "一篇 KV 换出论文", "换出：低分 KV 块换到 SSD", "上下文：单卡可服务的上下文长度提升 3.6 倍")
    claim = "新版本：单卡支持 2M token 上下文"
    status = said_by_key_points(claim, known)
    assert not status.known and status.new_numbers == ["2m"]  # type: ignore[attr-defined]
    [evidence] = status.evidence  # type: ignore[attr-defined]
    assert evidence.key_point and evidence.changes_a_figure


def test_a_figure_on_other_accelerators_than_the_record_names_is_new() -> None:
    known = record("sw", "an offloading paper", "offloading adapters", "adapters are swapped to host memory on H100s")
    status = said_by_key_points("offloading adapters on H200s serves 2,000 adapters", known)
    assert not status.known and status.new_numbers == ["2k"]  # type: ignore[attr-defined]
    assert status.evidence[0].key_point  # type: ignore[attr-defined]


def test_a_figure_added_to_a_key_point_in_words_or_restating_its_figure_stays_detail() -> None:
    """The rule it narrows: a key point stating the result in words, or one whose figure the
    claim restates (a model size added to "解码加速 3.1 倍"), carries the added figure."""
    words = record("kp", "一篇缓存论文", "缓存压缩提升成功率", "无需重新训练")
    assert said_by_key_points("缓存压缩把成功率提升到 90%", words).known  # type: ignore[attr-defined]
    sped = record("fs", "投机解码论文", "速度：在 H100 上解码加速 3.1 倍", "接受长度更长")
    restated = said_by_key_points("Llama-70B 在 H100 上解码加速 3.1 倍", sped)
    assert restated.known  # type: ignore[attr-defined]


def test_figure_of_its_own_reads_the_passage_and_the_records_hardware() -> None:
    passage = "上下文：单张 GPU 可服务的上下文长度提升 3.6 倍"
    assert figure_of_its_own("v0.3 在单张 H200 上支持 2M token 上下文", ["2m"], passage, passage)
    assert not figure_of_its_own("v0.3 支持 2M token 上下文，无需改模型", [], passage, passage)
    assert not figure_of_its_own("训练只用了 3,000 道题", ["3k"], passage, passage)  # another quantity
    h100 = "在 H100 上解码加速 3.1 倍"
    assert figure_of_its_own("在 H200 上跑通 405B 模型", ["405b"], "解码加速", h100)
    assert not figure_of_its_own("在 H100 上跑通 405B 模型", ["405b"], "解码加速", h100)


def test_a_count_in_the_key_point_or_its_own_figure_with_the_unit_lost_is_no_figure_of_its_own() -> None:
    """Dev digests: "覆盖 9 个领域的长视频" counts domains, not the videos' 2306 s; "$3.51\\%$"
    read as 3.51 is the key point's 3.51% restated."""
    assert not figure_of_its_own("构建长视频数据集（平均 2306 秒）", ["2306s"], "覆盖 9 个领域的长视频", "")
    passage = "AUC 分别提高了 3.51% 和 6.21%"
    assert not figure_of_its_own("AUC 分别提高 $3.51\\%$ 和 $6.21\\%$", ["3.51", "6.21"], passage, passage)
