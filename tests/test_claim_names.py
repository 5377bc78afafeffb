"""A claim's coined names that no same-item record mentions make it new to the cosine decision."""

from __future__ import annotations

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.claim_names import unnamed_by
from kbsearch.dedupe.claims import PassageHit, judge_claim
from kbsearch.dedupe.rules import Embedded
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()
CONFIG = fake_config()
JUDGED = CONFIG.model_copy(update={"judge_claim_known": CONFIG.claim_known})  # the judge's cosine decision


def embedded(record_id: str, title: str, text: str, *claims: str) -> Embedded:
    record = Record(id=record_id, kind=Kind.increment, title=title, text=text, claims=list(claims))
    return Embedded(record, ENCODER.encode(record.passages()))


def near_title(known: Embedded, claim: str) -> bool:
    """The claim against the record's title at a cosine the decision reads as the same fact."""
    vector = ENCODER.encode([claim])[0]
    return judge_claim(claim, vector, [], [known], JUDGED, judged=[PassageHit(known, 0, 0.99)]).known


def test_a_claim_naming_what_no_same_item_record_mentions_is_not_known_by_the_cosine() -> None:
    """Probe: spark's "新增：支持 Qwen3 系列模型" about FlashSparse's code was known from jay's
    English title "FlashSparse: per-head dynamic KV sparsity…" (judge's cosine 0.85 across
    languages), and the release came out a DUPLICATE."""
    known = embedded("jay", "SparseHead: per-head KV sparsity, faster decoding", "Code ships a plugin.")
    assert unnamed_by("新增：支持 Qwen7 系列模型", [known]) == {"qwen7"}
    assert not near_title(known, "新增：支持 Qwen7 系列模型")


def test_a_claim_whose_name_a_same_item_record_holds_is_left_to_the_cosine() -> None:
    known = embedded("jay", "SparseHead: per-head KV sparsity", "Code ships a plugin.", "Adds Qwen7 support")
    assert unnamed_by("新增：支持 Qwen7 系列模型", [known]) == set()
    assert near_title(known, "新增：支持 Qwen7 系列模型")
    assert unnamed_by("代码开源，附带插件", [known]) == set()  # no coined name: nothing to miss
    assert near_title(known, "代码开源，附带插件")


def test_a_claim_naming_its_item_and_a_benchmark_its_records_never_give_is_not_known_by_the_cosine() -> None:
    """xling: "TriPSS … new performance benchmarks on TVSum20 and SumMe" was known from a
    record naming TriPSS but no benchmark (judge's cosine 0.87), and the item's new result
    was dropped as a DUPLICATE. The item's own name held by the record does not vouch for
    the benchmarks it never gave."""
    known = embedded("jay", "TriPSS: tri-modal keyframes", "TriPSS fuses colour, depth and semantics.")
    claim = "TriPSS sets new results on TVSum20 and SumMe"
    assert unnamed_by(claim, [known]) == {"tvsum20", "summe"}
    assert not near_title(known, claim)


def test_a_name_written_with_a_hyphen_in_the_record_is_held() -> None:
    known = embedded("jay", "Deep nets", "Trained ResNet-110 on CIFAR.")
    assert unnamed_by("A ResNet110 reaches the same error", [known]) == set()


def test_a_variant_of_the_items_model_its_records_never_name_is_not_known_by_the_cosine() -> None:
    """Probe 34: a retrain "…-8B-r" promised for January was known from the record of the
    8B model itself (cosine decision 0.76 ≥ 0.50): "-r" is no coined word, so nothing was missed."""
    known = embedded("jay", "Corvid-9B base model", "Corvid-9B: 9B dense, 12T tokens.")
    claim = "A cleaned Corvid-9B-v, retrained, follows in spring"
    assert unnamed_by(claim, [known]) == {"corvid-9b-v"}
    assert not near_title(known, claim)
    assert unnamed_by("Corvid-9B is a 9B dense model", [known]) == set()  # the model itself
    assert unnamed_by("Scores state-of-the-art on its 2-shot set", [known]) == set()  # no stem written
    later = embedded("tom", "Corvid-9B-v announced", "Corvid-9B-v retrains Corvid-9B on cleaned data.")
    assert unnamed_by(claim, [known, later]) == set()
