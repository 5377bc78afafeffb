"""The rules of dedupe.py on hand-made records: ids, paper titles, restated cards,
numbers, shared names; and verdicts that never contradict their claims."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import fake_config
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fake_encoder import FakeEncoder
from kbsearch.dedupe.claims import PassageHit, judge_claim
from kbsearch.dedupe.features import Neighbourhood, latin_names, name_weight
from kbsearch.dedupe.named_systems import versioned_names
from kbsearch.dedupe.results import ClaimStatus, Match, Rule, Verdict
from kbsearch.dedupe.rules import Embedded, around_of, compare, compare_all, restates_same_paper, ruled_out
from kbsearch.dedupe.verdict import decide
from kbsearch.records import Kind, Record
from kbsearch.text.textsim import substantive_numbers

ENCODER = FakeEncoder()
CONFIG = fake_config()
SUMMARY = "提出一种面向长上下文推理的KV缓存压缩方法，显著降低显存占用并保持精度。"


def embedded(record_id: str, title: str, text: str, kind: Kind = Kind.paper_card, **extra: object) -> Embedded:
    record = Record(id=record_id, kind=kind, title=title, text=text, **extra)  # type: ignore[arg-type]
    return Embedded(record, ENCODER.encode(record.passages()))


def common(_: str) -> int:
    return 50


def judge(item: Embedded, known: Embedded, around: float = 0.0) -> Match:
    return compare(item, known, CONFIG, Neighbourhood(around), common)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("收集了41份日志和512条轨迹", {"41", "512"}),
        ("吞吐提升了10.7x，命中率达63.25%。", {"10.7x", "63.25%"}),
        ("加速 2.5 倍, 1,618 tokens", {"2.5x", "1618"}),
        ("训练两个7B参数的模型", {"7b"}),
        ("GPT-4.1 与 ShardBench-2k, Qwen2.5", set()),
        ("2026年3月发布，见第1节", set()),
        ("见 §3.3 与 §1.3 的讨论", set()),
        ("修复见 Issue #13165，PR 4521 已合入", set()),
        ("Figure 10 与 Table 2、图 3、表2 给出结果", set()),
        ("以 Apache 2.0 许可发布 v0.26.0，Python 3.11 可用", set()),
        ("2048/2048 个用例通过，吞吐 57.5 / 19.2 per GPU", {"57.5", "19.2"}),
        ("NDCG@10 为 0.71，BLEU 34.5", {"0.71", "34.5"}),
        ("Serving Kimi K3 needs 8 H200 GPUs", {"8"}),
        ("部署需要 4 张 H200，4-bit 权重", {"4", "4bit"}),  # 4 cards and a width
        ("见第 3 步，Python 3 可用，top-3 结果", set()),
    ],
)
def test_numbers_are_results_not_labels_names_or_versions(text: str, expected: set[str]) -> None:
    assert substantive_numbers(text) == expected


def test_units_are_normalised_alike_in_both_languages() -> None:
    assert substantive_numbers("提升10.7倍") == substantive_numbers("10.7× faster") == {"10.7x"}


@pytest.mark.parametrize(
    ("one", "other", "expected"),
    [
        ("信号强度平均提升23dB，高于-65dB", "a 23 dB gain, above -65 dB", {"23", "65"}),
        ("在60GHz频段", "in the 60 GHz band", {"60ghz"}),  # a prefixed unit, one figure in any prefix
        ("约1万个token", "around 10,000 tokens", {"10k"}),
        ("超过6.3万条标注", "over 63,000 annotations", {"63k"}),
        ("15亿参数", "1.5 billion parameters", {"1.5b"}),
        ("128K上下文", "a context of 128,000 tokens", {"128k"}),
        ("0.5M tokens", "500k tokens", {"500k"}),
    ],
)
def test_one_quantity_reads_alike_however_its_unit_or_magnitude_is_written(
    one: str, other: str, expected: set[str]
) -> None:
    """Issue 25: "23dB" in a Chinese record read as no number, "23 dB" in an English claim as 23,
    so a retelling brought a "new" number; 10k, 10,000 and 1万 were three numbers."""
    assert substantive_numbers(one) == substantive_numbers(other) == expected


@pytest.mark.parametrize(
    ("words", "digits", "expected"),
    [
        ("吞吐提升三倍", "throughput up 3x", {"3x"}),
        ("显存占用约小了十倍", "roughly a tenfold smaller footprint", {"10x"}),
        ("about ten times smaller", "about 10x smaller", {"10x"}),
        ("the KV cache shrinks by about ten times", "a tenfold smaller KV cache", {"10x"}),
        ("twice as fast as vLLM", "2x faster than vLLM", {"2x"}),
        ("a 1.5-fold speedup", "加速一点五倍", {"1.5x"}),
        ("二十五倍的压缩比", "twenty-five times more compression", {"25x"}),
        ("延迟降低百分之三十", "latency down 30 percent", {"30%"}),
        ("百分之12.5的请求", "12.5% of requests", {"12.5%"}),
    ],
)
def test_a_figure_written_in_words_reads_as_in_digits(words: str, digits: str, expected: set[str]) -> None:
    """Issue 25: "三倍" or "tenfold" read as no number, "3x" as 3x, so a faithful retelling
    in the other language or style brought a "new" figure."""
    assert substantive_numbers(words) == substantive_numbers(digits) == expected


@pytest.mark.parametrize(
    "text",
    [
        "训练两个7B参数的模型",  # a count in words: no figure
        "5-fold cross-validation on three datasets",  # a protocol, not a speed-up
        "we ran each benchmark three times",  # repetitions, not a multiplier
        "提升三四倍",  # a range of two numerals reads as no single figure
    ],
)
def test_words_that_count_or_name_a_protocol_state_no_figure(text: str) -> None:
    assert substantive_numbers(text) <= {"7b"}


def test_a_number_that_is_not_a_round_magnitude_keeps_its_digits() -> None:
    assert substantive_numbers("1,618 tokens in 2026, 2,632 pairs") == {"1618", "2632"}


def test_two_cards_with_one_title_are_one_paper_however_they_are_summarised() -> None:
    first = embedded("a", "Paged Prefix Sharing at Scale", "多租户服务中按页共享前缀缓存，降低首字延迟。")
    later = embedded("b", "Paged prefix sharing  at scale", "研究多租户推理中前缀页的复用及其调度。")
    match = judge(later, first)
    assert match.same_item and match.rule is Rule.card_title
    assert match.reasons == ["paper cards with the same title"]


def test_cards_with_different_titles_are_different_papers_even_with_one_summary() -> None:
    first = embedded("a", "RingKV: Ring Buffers for Multi-Turn KV Reuse", SUMMARY)
    later = embedded("b", "Tidal: Elastic Prefill Scheduling for Long Contexts", SUMMARY)
    match = judge(later, first)
    assert match.probability >= match.threshold  # the learned decision alone would merge them
    assert not match.same_item and "different titles" in match.reasons[0]


def test_a_revised_title_and_other_kinds_fall_through_to_the_learned_decision() -> None:
    first = embedded("a", "Sparse Draft Trees for Speculative Decoding", SUMMARY)
    revised = embedded("b", "Adaptive Sparse Draft Trees for Speculative Decoding", SUMMARY)
    match = judge(revised, first)
    assert match.same_item and match.rule is Rule.learned
    assert match.reasons == [f"same item {match.probability:.2f} ≥ 0.50 (summary form)"]
    increment = embedded("c", "Something else entirely, another title", SUMMARY, kind=Kind.increment)
    assert judge(increment, first).rule is Rule.learned


def test_ids_settle_it_before_any_score() -> None:
    first = embedded("a", "C2KV", SUMMARY, kind=Kind.increment, arxiv_ids=["2607.17715"])
    same = embedded("b", "Totally different words", "完全不同的文字", kind=Kind.increment, arxiv_ids=["2607.17715"])
    other = embedded("c", "C2KV", SUMMARY, kind=Kind.increment, arxiv_ids=["2608.00902"])
    citing = embedded("d", "C2KV", SUMMARY, kind=Kind.increment, cited_ids=["2607.17715"])
    assert judge(same, first).rule is Rule.shared_id and judge(same, first).same_item
    assert judge(other, first).rule is Rule.different_ids and not judge(other, first).same_item
    assert judge(citing, first).rule is Rule.cited_id and not judge(citing, first).same_item


def test_a_learned_match_carries_the_scorers_own_probability() -> None:
    """The probability shown is the shipped form's output on the features shown (re-decidable
    without re-embedding), strictly between 0 and 1 on a pair no exact rule settles."""
    first = embedded("a", "Sparse Draft Trees for Speculative Decoding", SUMMARY, kind=Kind.increment)
    other = embedded("b", "Elastic prefill scheduling", "弹性预填充调度，缩短长上下文首字延迟。", kind=Kind.increment)
    for item in (other, embedded("c", "Sparse draft trees, revisited", SUMMARY, kind=Kind.increment)):
        match = judge(item, first)
        assert match.rule is Rule.learned and 0.0 < match.probability < 1.0 and -1.0 <= match.score <= 1.0
        assert match.probability == pytest.approx(CONFIG.same_item.probability(match.features), abs=1e-4)
        assert match.same_item == (match.probability >= CONFIG.same_item.threshold)
    assert judge(other, first).probability < judge(embedded("d", "x", SUMMARY, kind=Kind.increment), first).probability


def test_a_rare_shared_name_weighs_more_than_a_common_one() -> None:
    assert latin_names("论文提出 FoldKV 与 DES，基于 Transformer 和 vLLM") == {"foldkv", "des", "vllm"}
    assert "transformer" not in latin_names("Transformer")
    assert name_weight(1) > name_weight(3) > name_weight(49) > name_weight(50) == name_weight(500) > 0


def claim_status(known: Embedded, claim: str, restatement: bool) -> ClaimStatus:
    vector = ENCODER.encode([claim])[0]
    hits = [PassageHit(known, 0, float(known.vectors[0] @ vector))]
    return judge_claim(claim, vector, hits, [known], CONFIG, restatement)


def test_a_later_card_of_one_paper_only_brings_news_with_a_new_number() -> None:
    first = embedded("a", "FoldKV: Merging Heads for Cheaper Caches", "提出合并注意力头的方法，降低缓存显存。")
    later = embedded("b", "FoldKV: Merging Heads for Cheaper Caches", "合并注意力头比丢弃更稳。")
    assert restates_same_paper(later.record, [first])
    reworded = claim_status(first, "合并注意力头比丢弃更稳，适合长上下文推理。", restatement=True)
    assert reworded.known and reworded.score < reworded.threshold and reworded.restated
    numbers = claim_status(first, "精度保持96.4%，缓存只剩原来的17.5%。", restatement=True)
    assert not numbers.known and numbers.new_numbers == ["17.5%", "96.4%"]
    as_increment = claim_status(first, "合并注意力头比丢弃更稳，适合长上下文推理。", restatement=False)
    assert not as_increment.known and not as_increment.restated
    said = claim_status(first, "提出合并注意力头的方法，降低缓存显存。", restatement=True)
    assert said.known and not said.restated  # a passage says it: shown by its score, as any known claim


def test_a_section_or_issue_number_never_makes_a_claim_new() -> None:
    known = embedded("a", "", "SGLang 的后缀解码已合入主线，吞吐提升 30%。", kind=Kind.increment)
    claim = "SGLang 的后缀解码已合入主线，吞吐提升 30%。见 §3.3 与 Issue #13165。"
    status = claim_status(known, claim, restatement=False)
    assert status.new_numbers == []


def test_a_count_the_record_states_in_passing_is_not_new_in_a_claim() -> None:
    """A lone digit is no result in "6-ply" but is counted in "6层": the record still says it."""
    known = embedded("a", "", "通过6-ply束搜索选择走法，估计Elo评分为2593。", kind=Kind.increment)
    status = claim_status(known, "模型仅使用6层束搜索，估计Elo评分为2593。", restatement=True)
    assert status.new_numbers == [] and status.known


def test_an_increment_is_never_a_restatement_of_a_card() -> None:
    card = embedded("a", "FoldKV: Merging Heads for Cheaper Caches", SUMMARY)
    increment = embedded("b", "FoldKV", SUMMARY, kind=Kind.increment)
    assert not restates_same_paper(increment.record, [card])
    assert not restates_same_paper(card.record, [increment])


# -- verdicts agree with their evidence ----------------------------------------------


def _match(same: bool, rule: Rule = Rule.learned) -> Match:
    return Match(
        id="k",
        kind=Kind.increment,
        title="t",
        instance="jay",
        date=None,
        score=0.8,
        lexical=0.1,
        probability=0.9 if same else 0.1,
        threshold=0.5,
        same_item=same,
        rule=rule,
    )


@settings(max_examples=200, deadline=None)
@given(
    known=st.lists(st.booleans(), min_size=1, max_size=8),
    same=st.lists(st.booleans(), max_size=4),
    numbers=st.lists(st.booleans(), min_size=8, max_size=8),
    identical=st.booleans(),
)
def test_a_verdict_never_contradicts_its_claims(
    known: list[bool], same: list[bool], numbers: list[bool], identical: bool
) -> None:
    """Identical text included: the same text with a key point of its own is an UPDATE."""
    claims = [
        ClaimStatus(
            text=f"c{i}", known=k, score=0.9 if k else 0.1, threshold=0.5, new_numbers=["41"] if n and not k else []
        )
        for i, (k, n) in enumerate(zip(known, numbers, strict=False))
    ]
    matches = [_match(s, Rule.identical_text if identical and s else Rule.learned) for s in same]
    assume(any(same) or not any(known))  # judge_claim knows a claim only from a same-item record
    verdict, reason = decide(matches, claims)
    if not any(same):
        assert verdict is Verdict.NEW  # no known record is the same item, and nothing is known
    elif all(known):
        assert verdict is Verdict.DUPLICATE  # nothing in it is new
    else:
        assert verdict is Verdict.UPDATE  # the same item, and something in it is new
    if verdict is Verdict.UPDATE:
        said = f"{known.count(False)} of {len(known)} claims new"
        if all(not k for k in known):  # none known: the reason says the UPDATE rests on the item decision
            said = "its 1 claim is not known: it is new" if len(known) == 1 else "no claim of it is known"
        assert said in reason


def test_the_reason_names_the_item_not_the_doc_section_that_cites_it() -> None:
    """A section sharing the paper's id is the same item by that id, and surer
    than the paper's card; the reason still names the card."""
    section = _match(True, Rule.shared_id).model_copy(update={"id": "doc/inference#§3.3", "kind": Kind.doc_section})
    card = _match(True).model_copy(update={"id": "card/1095", "kind": Kind.paper_card, "probability": 0.95})
    claims = [ClaimStatus(text="c", known=True, score=0.9, threshold=0.5)]
    assert decide([section, card], claims) == (Verdict.DUPLICATE, "same item as card/1095, and its 1 claim is known")
    _, alone = decide([section], claims)
    assert alone.startswith("same item as doc/inference#§3.3")


@pytest.mark.parametrize(
    ("known", "reason"),
    [
        ([], "same item as k, no claims to compare"),
        ([True], "same item as k, and its 1 claim is known"),
        ([False], "same item as k by the learned decision; its 1 claim is not known: it is new"),
        ([True, True], "same item as k, and both claims are known"),
        ([True, True, True], "same item as k, and all 3 claims are known"),
        ([True, False], "same item as k, 1 of 2 claims new"),
    ],
)
def test_the_reason_counts_the_claims_in_good_english(known: list[bool], reason: str) -> None:
    claims = [ClaimStatus(text=f"c{i}", known=k, score=0.5, threshold=0.5) for i, k in enumerate(known)]
    assert decide([_match(True)], claims)[1] == reason


def test_a_new_item_s_closest_record_is_one_the_learned_decision_weighed() -> None:
    """A section's learned probability, overridden by its rule, is not shown as how close the item came."""
    section = _match(False, Rule.doc_section).model_copy(update={"id": "doc/x#§1.1", "probability": 0.99})
    other = _match(False).model_copy(update={"id": "jay/1#3", "probability": 0.02})
    claims = [ClaimStatus(text="c", known=False, score=0.1, threshold=0.5)]
    assert decide([section, other], claims)[1].endswith("closest jay/1#3, same item 0.02")
    assert decide([section], claims)[1] == "no known record describes the same item"


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(["缓存", "压缩", "KV", "cache", "吞吐", "10x", "vLLM", "显存"]), min_size=1, max_size=6
    )
)
def test_a_claim_is_known_only_from_a_same_item_record(words: list[str]) -> None:
    text = " ".join(words)
    other = embedded("o", "", text, kind=Kind.increment)
    vector = ENCODER.encode([text])[0]
    hits = [PassageHit(other, 0, float(other.vectors[0] @ vector))]
    alone = judge_claim(text, vector, hits, [], CONFIG)
    assert not alone.known  # the very same words, but from a record not judged the same item
    assert judge_claim(text, vector, hits, [other], CONFIG).known


def _unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_top_marks_the_candidate_no_other_is_closer_under_each_encoder() -> None:
    """``top`` and ``judge_top`` are 1 for the item's nearest candidate under
    that encoder and 0 for the others; the two encoders may disagree."""
    item = Embedded(Record(id="i", kind=Kind.increment, text="item"), _unit(1, 0, 0)[None, :], judge=_unit(1, 0))
    near_index = Embedded(Record(id="a", kind=Kind.increment, text="a"), _unit(1, 0.2, 0)[None, :], judge=_unit(1, 1))
    near_judge = Embedded(Record(id="b", kind=Kind.increment, text="b"), _unit(1, 0.5, 0)[None, :], judge=_unit(1, 0.1))
    far = Embedded(Record(id="c", kind=Kind.increment, text="c"), _unit(0, 1, 0)[None, :], judge=_unit(0, 1))
    matches = {m.id: m.features for m in compare_all(item, [near_index, near_judge, far], CONFIG, common)}
    assert [(matches[k]["top"], matches[k]["judge_top"]) for k in "abc"] == [(1.0, 0.0), (0.0, 1.0), (0.0, 0.0)]


def test_the_neighbourhood_keeps_the_nearest_cosine_and_a_lone_candidate_is_the_nearest() -> None:
    around = around_of([0.2, 0.7, 0.5], [0.9, 0.95], CONFIG)
    assert (around.best, around.judge_best) == (pytest.approx(0.7), pytest.approx(0.95))
    assert around_of([], [], CONFIG) == Neighbourhood(0.0, 0.0, -1.0, -1.0)
    lone = Embedded(Record(id="a", kind=Kind.increment, text="a"), _unit(0, 1, 0)[None, :])
    item = Embedded(Record(id="i", kind=Kind.increment, text="i"), _unit(1, 0, 0)[None, :])
    assert compare_all(item, [lone], CONFIG, common)[0].features["top"] == 1.0


def test_a_records_tokens_are_held_once_and_shared_with_other_records() -> None:
    # audit holds every record's tokens at once: the feature side must not copy
    # them, and a bigram or word two records share must be one string object.
    a = embedded("a", "", SUMMARY + " TriAttention cache")
    b = embedded("b", "", "一种KV缓存压缩方法，降低显存占用。TriAttention cache")
    shared = a.tokens & b.tokens
    assert {"缓存", "显存", "triattention", "cache"} <= shared
    assert a.side.tokens is a.tokens
    assert {id(t) for t in a.tokens} & {id(t) for t in b.tokens} == {id(t) for t in a.tokens if t in shared}


def test_a_doc_section_is_never_the_same_item_as_an_increment_it_covers() -> None:
    """Issue 25: a living-doc section is a survey of its field. Said in the very same words, it is
    still another item (the claims it states stay evidence); listing the item's own arXiv id, it
    holds the paper, and is still not the item (the ids rule came first: "same item as
    doc/inference#§1.1 (both are about arXiv 2606.01927)", a new user's probe, 6 December)."""
    words = "vLLM and SGLang lead serving; FP4 kernels land in FlashInfer"
    section = embedded("doc/inference#§1.1", "§1.1 engines", words, kind=Kind.doc_section)
    item = embedded("x", "FlashInfer FP4", words, kind=Kind.increment)
    match = judge(item, section)
    assert not match.same_item and match.rule is Rule.doc_section
    assert match.probability >= match.threshold  # the learned decision alone would have merged them
    listed = embedded("doc/inference#§1.3", "§1.3 KV cache", words, kind=Kind.doc_section, arxiv_ids=["2607.17715"])
    about = embedded("y", "C2KV", "another text", kind=Kind.increment, arxiv_ids=["2607.17715"])
    for a, b in ((about, listed), (listed, about)):  # checking an increment, and checking the doc
        match = judge(a, b)
        assert not match.same_item and match.rule is Rule.doc_section and match.shared_ids == ["2607.17715"]
        assert "it lists arXiv 2607.17715" in match.reasons[0]
        assert not ruled_out(a, b, CONFIG)  # what the section states stays evidence for the claims


def test_titles_naming_two_rare_systems_are_two_items() -> None:
    """Issue 25: the KEDA autoscaling note and the LMCache note read alike (vLLM, prefix cache,
    TTFT) and were judged one item at 0.99; each title names a system the other never mentions."""
    keda = embedded("keda", "Prefix-cache-aware autoscaling for vLLM with KEDA", SUMMARY, kind=Kind.increment)
    lmcache = embedded("lmc", "LMCache — KV Cache 持久化层 for vLLM", SUMMARY, kind=Kind.increment)
    rare = lambda name: 1 if name in {"keda", "lmcache"} else 50  # noqa: E731
    match = compare(keda, lmcache, CONFIG, Neighbourhood(), rare)
    assert not match.same_item and match.rule is Rule.different_names and "keda" in match.reasons[0]
    assert match.probability >= match.threshold  # the learned decision alone would have merged them
    retold = embedded("re", "KEDA 按前缀缓存命中率扩缩 vLLM", SUMMARY, kind=Kind.increment)
    assert compare(retold, keda, CONFIG, Neighbourhood(), rare).rule is not Rule.different_names  # one system
    # Not rare, the two systems' names say nothing, unless the one name they share is only what
    # each is for ("for vLLM"): kbsearch.dedupe.platforms sets those apart whatever the count.
    keda_on = embedded("keda", "vLLM prefix-cache-aware autoscaling with KEDA", SUMMARY, kind=Kind.increment)
    lmcache_on = embedded("lmc", "vLLM LMCache — KV Cache 持久化层", SUMMARY, kind=Kind.increment)
    assert compare(keda_on, lmcache_on, CONFIG, Neighbourhood(), common).rule is not Rule.different_names
    assert compare(keda, lmcache, CONFIG, Neighbourhood(), common).rule is Rule.different_names


def test_a_system_named_only_in_the_text_is_another_item_than_a_title_s_system() -> None:
    """Issue 25: an item titled for its technique names its system only in its text (PolarKV),
    beside a known note whose title names another (TriAttention). Each never mentions the other's
    system: two items, however alike they read. A retelling that names the known system, or an
    item whose names are all common, is left to the learned decision."""
    tri = embedded("tri", "TriAttention：三角注意力压缩 KV Cache", SUMMARY, kind=Kind.increment)
    polar = embedded("polar", "用极坐标量化压缩 KV Cache", SUMMARY + " PolarKV", kind=Kind.increment)
    rare = lambda name: 1 if name in {"triattention", "polarkv"} else 50  # noqa: E731
    match = compare(polar, tri, CONFIG, Neighbourhood(), rare)
    assert not match.same_item and match.rule is Rule.different_names, match.reasons
    assert "triattention" in match.reasons[0] and "polarkv" in match.reasons[0]
    assert match.probability >= match.threshold  # the learned decision alone would have merged them
    retold = embedded("re", "用极坐标量化压缩 KV Cache", SUMMARY + " PolarKV, like TriAttention", kind=Kind.increment)
    assert compare(retold, tri, CONFIG, Neighbourhood(), rare).rule is not Rule.different_names
    assert compare(polar, tri, CONFIG, Neighbourhood(), common).rule is not Rule.different_names  # not rare
    unnamed = embedded("un", "用极坐标量化压缩 KV Cache", SUMMARY, kind=Kind.increment)
    assert compare(unnamed, tri, CONFIG, Neighbourhood(), rare).rule is not Rule.different_names  # names nothing


def test_the_cosine_decision_hears_no_earlier_stage_as_the_claim() -> None:
    """The judge's cosine decision (and USE's, without a judge) weighs the same stage rule as
    ``claim_said``: "review 中" does not make "merged" known."""
    known = embedded("a", "", "TriAttention 的 TensorRT-LLM PR 目前是 review 中。", kind=Kind.increment)
    moved = claim_status(known, "TriAttention 的 TensorRT-LLM PR 已合入主分支。", restatement=True)
    assert not moved.known and moved.moved_on == "review → merged"
    assert claim_status(known, "TriAttention 的 TensorRT-LLM PR 目前是 review 中。", restatement=True).known


def test_two_products_of_one_vendor_are_two_items() -> None:
    """A shared vendor's name in both titles (NVIDIA) hid that each names a system the other
    never mentions: an NVIDIA Dynamo release was "same item 0.99" as an NVIDIA TensorRT-LLM
    tuning guide. A retelling that only adds a system to its title is still left to the
    learned decision: its record names the known one's systems."""
    guide = embedded("guide", "NVIDIA TensorRT-LLM tuning guide on GB300", SUMMARY, kind=Kind.increment)
    dynamo = embedded("dynamo", "NVIDIA Dynamo 1.2 disaggregates prefill", SUMMARY, kind=Kind.increment)
    rare = lambda name: 1 if name in {"nvidia", "tensorrt", "gb300", "dynamo"} else 50  # noqa: E731
    match = compare(dynamo, guide, CONFIG, Neighbourhood(), rare)
    assert not match.same_item and match.rule is Rule.different_names, match.reasons
    assert "dynamo" in match.reasons[0] and "tensorrt" in match.reasons[0]
    merged = embedded("merged", "NVIDIA TensorRT-LLM merges TriAttention", SUMMARY + " GB300", kind=Kind.increment)
    assert compare(merged, guide, CONFIG, Neighbourhood(), rare).rule is not Rule.different_names


def test_an_arxiv_id_after_a_word_names_no_product() -> None:
    """ "About 2609.40001, citing 2607.17715" read as a product named About, version 2609.40001:
    the named-systems rule then gave "this one names about, never mentioned there"."""
    assert versioned_names("About 2609.40001, citing 2607.17715.") == set()
    assert versioned_names("NVIDIA Dynamo 1.2 beside Llama 3.3") == {"dynamo", "llama"}


def test_a_shared_id_says_it_decides_whatever_the_learned_score() -> None:
    """Probe 46: "same item … by rule shared_id: both are about arXiv X", shown beside a learned
    probability of 0.03, read as a contradiction; the reason says the shared id decided it."""
    a = embedded("a", "Tollgate", "a benchmark of tool injections", kind=Kind.increment, arxiv_ids=["2610.07002"])
    b = embedded("b", "Tollgate v2", "another text entirely", kind=Kind.increment, arxiv_ids=["2610.07002"])
    match = judge(a, b)
    assert match.same_item and match.rule is Rule.shared_id
    assert match.reasons == ["both are about arXiv 2610.07002: the shared id decides, not the learned score"]
