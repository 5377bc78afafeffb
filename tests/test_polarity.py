"""A claim saying the opposite of a known passage about the same thing is news: "现在支持
SGLang" was known from "SGLang 尚不支持" (probe 8), and a real UPDATE came out DUPLICATE."""

from __future__ import annotations

import pytest
from test_claim_said import ALWAYS, ENCODER, record, said

from kbsearch.dedupe.results import ClaimStatus, ItemResult, Match, Rule, Verdict
from kbsearch.dedupe.verdict import decide
from kbsearch.records import Kind
from kbsearch.render import item_text
from kbsearch.text.polarity import reverses


@pytest.mark.parametrize(
    ("claim", "passage", "reason"),
    [
        ("生态：KVHex 如今支持 SGLang", "生态：只有 vLLM 插件，SGLang 尚不支持", "SGLang 尚不支持 → 支持 SGLang"),
        ("接入：不提供 vLLM 插件，需手动改代码", "接入：提供 vLLM 插件，开箱即用", "提供 vLLM 插件 → 不提供 vLLM 插件"),
        (
            "打分：不使用 LLM-as-judge，全由人工",
            "基准用 LLM-as-judge 打分，一致率 90%",
            "用 LLM-as-judge 打分 → 不使用 LLM-as-judge",
        ),
        ("kvhex now supports SGLang", "SGLang is not yet supported", "SGLang is not yet supported → supports SGLang"),
        (
            "the router does not use a learned gate",
            "the router uses a learned gate",
            "uses a learned gate → does not use",
        ),
        ("权重暂未开源", "权重已开源", "权重已开源 → 权重暂未开源"),
    ],
)
def test_a_claim_taking_the_opposite_stance_on_the_same_thing_reverses_it(
    claim: str, passage: str, reason: str
) -> None:
    said_ = reverses(claim, passage)
    assert said_ is not None and said_.startswith("reverses: ")
    assert said_.removeprefix("reverses: ").startswith(reason.split(" → ")[0])
    assert reason.split(" → ")[1] in said_


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        # The negation governs another object: FP8, not SGLang.
        ("KVHex 支持 SGLang，但不支持 FP8", "KVHex 支持 SGLang"),
        ("kvhex supports SGLang but does not support FP8", "kvhex supports SGLang"),
        # The passage also takes the claim's stance on that thing.
        ("KVHex 不支持 FP8", "KVHex 支持 SGLang，不支持 FP8"),
        # A baseline compared with, not a stance: "better than models not using X".
        ("优于未使用去噪的模型", "训练时使用去噪数据"),
        # Both negated, or both positive.
        ("SGLang 尚不支持", "暂不支持 SGLang"),
        ("supports SGLang and vLLM", "SGLang is supported"),
        # No stance at all, or an unrelated negation elsewhere in the sentence.
        ("无需重新训练，吞吐提升 2 倍", "吞吐提升 2 倍，支持 SGLang"),
        ("不仅支持 SGLang，也支持 vLLM", "支持 SGLang"),
        # The same thing in opposite words: need and with are not read as stances.
        ("cuts decoding latency with little extra memory", "cuts decoding latency without much extra memory"),
        ("removes the need for labelled preference pairs", "works without requiring labelled preference pairs"),
    ],
)
def test_a_negation_of_something_else_or_a_shared_stance_reverses_nothing(claim: str, passage: str) -> None:
    assert reverses(claim, passage) is None


EARLIER = "kvhex ecosystem: a vllm plugin only, sglang is not yet supported"
LATER = "kvhex ecosystem: sglang is supported since v0.3"
CLAIM = "kvhex ecosystem: kvhex now supports sglang and has a vllm plugin"


def test_the_form_calls_a_reversed_fact_new_and_says_why() -> None:
    status = said(CLAIM, record("tom", "kvhex", EARLIER), same={"tom"}, shape=ALWAYS)
    assert not status.known  # type: ignore[attr-defined]
    assert status.moved_on.startswith("reverses: sglang is not yet supported → supports sglang")  # type: ignore[attr-defined]
    assert status.how_said.endswith("but says the opposite")  # type: ignore[attr-defined]


def test_a_record_already_stating_the_new_stance_makes_it_known() -> None:
    both = said(
        CLAIM, record("tom", "kvhex", EARLIER), record("jay", "kvhex", LATER), same={"tom", "jay"}, shape=ALWAYS
    )
    assert both.known and both.best_id == "jay"  # type: ignore[attr-defined]


def test_a_passage_silent_on_the_thing_does_not_make_the_reversal_known() -> None:
    """Probe 8: "不提供 vLLM 插件" was known from spark's record, which never mentions a
    plugin, beside tom's "提供 vLLM 插件"."""
    silent = record("spark", "kvhex", "kvhex ecosystem: kvhex quantizes the kv cache, sglang and a vllm plugin noted")
    status = said(CLAIM, record("tom", "kvhex", EARLIER), silent, same={"tom", "spark"}, shape=ALWAYS)
    assert not status.known and (status.moved_on or "").startswith("reverses: ")  # type: ignore[attr-defined]


def test_the_cosine_decision_also_calls_a_reversed_fact_new() -> None:
    from test_dedupe_rules import CONFIG

    from kbsearch.dedupe.claims import judge_claim

    vector = ENCODER.encode([CLAIM])[0]
    alone = judge_claim(CLAIM, vector, [], [record("tom", "kvhex", EARLIER)], CONFIG, restatement=True)
    assert not alone.known and (alone.moved_on or "").startswith("reverses: ")
    later = [record("tom", "kvhex", EARLIER), record("jay", "kvhex", LATER)]
    assert judge_claim(CLAIM, vector, [], later, CONFIG, restatement=True).known


def test_the_claim_line_and_the_verdict_name_the_reversal() -> None:
    claim = ClaimStatus(
        text=CLAIM,
        known=False,
        score=0.9,
        threshold=0.5,
        best_id="tom#1",
        best_text=EARLIER,
        moved_on="reverses: sglang is not yet supported → supports sglang",
    )
    item = ItemResult(
        id="x", title="kvhex", kind=Kind.increment, instance=None, date=None, verdict=Verdict.UPDATE, reason="r"
    )
    line = next(x for x in item_text(item.model_copy(update={"claims": [claim]})).splitlines() if "←" in x)
    assert "0.90 ≥ 0.50, but says the opposite [reverses: sglang is not yet supported → supports sglang]" in line
    assert "moved on" not in line
    same = Match(
        id="tom#1",
        kind=Kind.increment,
        title="kvhex",
        instance="tom",
        date=None,
        score=0.9,
        lexical=0.5,
        probability=0.99,
        threshold=0.5,
        same_item=True,
        rule=Rule.learned,
    )
    verdict, reason = decide([same], [claim])
    assert verdict is Verdict.UPDATE and reason.endswith("(reverses: sglang is not yet supported → supports sglang)")


ENDED_EN = "Tarnwell 3.0 drops support for its 2.x extension format"


@pytest.mark.parametrize(
    "claim",
    [
        "3.0 不再支持 2.x 的扩展格式",
        "3.0 移除了对 2.x 扩展格式的支持",
        "3.0 停止支持 2.x 扩展格式",
        "3.0 取消了对 2.x 扩展的支持",
        "3.0 移除 2.x 扩展支持",
        "对 2.x 扩展格式的支持已移除",
        "Tarnwell 3.0 stopped supporting 2.x extensions",
        "2.x extensions are no longer supported",
        "support for 2.x extensions has been removed",
        "3.0 removes 2.x extension support",
    ],
)
def test_support_ended_in_other_words_restates_support_dropped(claim: str) -> None:
    """Probe 32: "drops support for its 1.x plugin format" read as support, so its Chinese
    retelling "不再支持 1.x 的插件格式" was called a reversal and a repeat an UPDATE."""
    assert reverses(claim, ENDED_EN) is None
    assert reverses(ENDED_EN, claim) is None
    assert reverses("Tarnwell 3.0 still supports 2.x extensions", claim) is not None


def test_end_to_end_support_is_support() -> None:
    assert reverses("provides end-to-end support for 2.x extensions", ENDED_EN) is not None
