"""Two untitled digests whose texts each name a rare system the other never mentions are
two items (``named_systems.texts_name_apart``)."""

from __future__ import annotations

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded, compare
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()
CONFIG = fake_config()


def embedded(record_id: str, text: str, *claims: str, title: str = "") -> Embedded:
    record = Record(id=record_id, kind=Kind.increment, title=title, text=text, claims=list(claims))
    return Embedded(record, ENCODER.encode(record.passages()))


def rare(name: str) -> int:
    return 1


KVMIX = "KVmix is a mixed-precision quantization method for the KV cache in LLM inference."
MOQAE = "提出了一种名为MoQAE的混合精度量化方法，优化大语言模型长上下文推理中的KV缓存内存消耗。"


def test_untitled_texts_naming_different_rare_systems_are_two_items() -> None:
    """xling: the English digest of KVmix was an UPDATE of the Chinese digest of MoQAE (both
    quantise the KV cache, judge's cosine 0.85): the digests have no title, so the names
    rule, which read titles, never had a say."""
    match = compare(embedded("q", KVMIX), embedded("k", MOQAE), CONFIG, Neighbourhood(), rare)
    assert not match.same_item and match.rule is Rule.different_names, match.reasons
    assert "kvmix" in " ".join(match.reasons) and "moqae" in " ".join(match.reasons)


def test_a_name_the_other_record_mentions_anywhere_leaves_it_to_the_learned_decision() -> None:
    retold = embedded("k", "提出了一种混合精度 KV 缓存量化方法。", "KVmix 按层分配比特。")
    match = compare(embedded("q", KVMIX), retold, CONFIG, Neighbourhood(), rare)
    assert match.rule is not Rule.different_names, match.reasons


def test_one_text_without_a_coined_name_leaves_it_to_the_learned_decision() -> None:
    plain = embedded("k", "提出了一种混合精度量化方法，优化KV缓存内存消耗。")
    match = compare(embedded("q", KVMIX), plain, CONFIG, Neighbourhood(), rare)
    assert match.rule is not Rule.different_names, match.reasons


def test_common_names_do_not_set_untitled_texts_apart() -> None:
    match = compare(embedded("q", KVMIX), embedded("k", MOQAE), CONFIG, Neighbourhood(), lambda name: 500)
    assert match.rule is not Rule.different_names, match.reasons
