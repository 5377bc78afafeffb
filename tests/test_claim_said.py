"""claim_said: a claim is known from the passage that covers most of it, read through what
carries across languages (token coverage, names, numbers), with the fake encoders.

The form here is set by hand, so each test pins one mechanism: which passage is weighed,
what a missing name or number does, and that a record of another item is heard only when
it says that very fact."""

from __future__ import annotations

import pytest

from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.dedupe.claims import COVERAGE_CANDIDATES, PassageHit, PassageReader, coverage, either_says, judge_said
from kbsearch.dedupe.config import SAID_FEATURES, DedupeConfig
from kbsearch.dedupe.results import ClaimEvidence, ClaimStatus
from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.scorer import Scorer
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()
# "cache" in one language and "缓存" in the other are one token to the fake judge.
TOKENS = FakeTokenEncoder({"缓存": "cache", "压缩": "compression", "十倍": "10x"})


def form(weights: dict[str, float], threshold: float = 0.5) -> Scorer:
    """A hand-set form over every claim_said feature: p = σ(Σ wᵢ xᵢ - bias)."""
    names = list(SAID_FEATURES)
    return Scorer(
        features=names,
        weights=[weights.get(n, 0.0) for n in names],
        means=[0.0] * len(names),
        scales=[1.0] * len(names),
        bias=weights.get("bias", 0.0),
        threshold=threshold,
        fitted_on="hand-set for a test",
        score="none",
    )


# Said when it covers the claim's tokens, less when names or numbers are missing.
COVERED = form({"coverage": 20.0, "bias": -17.0, "names_missing": -4.0, "same_item": 1.0})


def record(rid: str, title: str, *claims: str, kind: Kind = Kind.increment) -> Embedded:
    rec = Record(id=rid, kind=kind, title=title, text="" if claims else title, claims=list(claims))
    return Embedded(rec, ENCODER.encode(rec.passages()))


def hits(known: Embedded, claim: str) -> list[PassageHit]:
    vector = ENCODER.encode([claim])[0]
    return [PassageHit(known, i, float(v @ vector)) for i, v in enumerate(known.vectors)]


def said(claim: str, *known: Embedded, same: set[str], shape: Scorer = COVERED) -> object:
    reader = PassageReader(None, TOKENS)
    candidates = [h for k in known for h in hits(k, claim)]
    return judge_said(claim, candidates, same, reader, shape)


def test_coverage_is_the_claims_share_said_not_the_passages() -> None:
    claim = TOKENS.encode_tokens(["cache compression 10x"])[0]
    longer = TOKENS.encode_tokens(["the KV cache compression reaches 10x on long contexts"])[0]
    assert coverage(claim, longer) == pytest.approx(1.0, abs=1e-6)  # every token of the claim is there
    assert coverage(longer, claim) < 0.8  # the reverse leaves most of the passage unsaid
    assert coverage(claim, None) == 0.0


def test_a_same_item_passage_that_covers_the_claim_makes_it_known_across_languages() -> None:
    known = record("zh", "长上下文 推理", "缓存 压缩 10x", "另一段 无关 文字")
    status = said("cache compression 10x", known, same={"zh"})
    assert status.known and status.best_id == "zh"  # type: ignore[attr-defined]
    [evidence] = status.evidence  # type: ignore[attr-defined]
    assert evidence.same_item and evidence.features["coverage"] > 0.99 and evidence.features["cross_coverage"] > 0.99


def test_the_passage_weighed_is_the_one_covering_most_of_the_claim() -> None:
    known = record("k", "unrelated words here", "cache compression 10x")
    status = said("cache compression 10x", known, same={"k"})
    assert status.known and status.best_text == "cache compression 10x"  # type: ignore[attr-defined]


def test_a_name_the_record_lacks_keeps_the_claim_new() -> None:
    """TGI in the claim, and the vLLM-SGLang benchmark never names it: not said, however alike."""
    known = record("bench", "vLLM SGLang serving engines maintenance mode")
    status = said("TGI serving engines maintenance mode", known, same={"bench"})
    assert not status.known  # type: ignore[attr-defined]
    assert status.evidence[0].features["names_missing"] == 1.0  # type: ignore[attr-defined]


def test_the_form_reads_which_language_pair_a_cosine_was_measured_in() -> None:
    """An English claim against an English passage is its own case: a loose English
    retelling sits where a Chinese pair's new fact does (docs/dedupe.md, within-en)."""
    english = said("cache compression 10x", record("en", "the cache compression reaches 10x"), same={"en"})
    chinese = said("缓存 压缩 十倍", record("zh", "长上下文 缓存 压缩 十倍"), same={"zh"})
    across = said("cache compression 10x", record("zh", "长上下文 缓存 压缩 十倍"), same={"zh"})
    pairs = [s.evidence[0].features["english_pair"] for s in (english, chinese, across)]  # type: ignore[attr-defined]
    assert pairs == [1.0, 0.0, 0.0]


def test_a_result_number_no_same_item_record_carries_keeps_the_claim_new() -> None:
    known = record("k", "cache compression 8x")
    status = said("cache compression 4x", known, same={"k"}, shape=form({"bias": 10.0}))
    assert not status.known and status.new_numbers == ["4x"]  # type: ignore[attr-defined]


def test_a_new_claim_is_shown_by_the_passage_the_form_weighed() -> None:
    """Issue 25: a claim called new was shown by the closest passage of any record under
    USE's form, which across languages put an unrelated title first, printed as saying the
    claim ("← tom/…#2 says the same 0.56 ≥ 0.50, but is not the same item"). It is shown by
    the passage the form weighed (the record it would repeat, when there is one)."""
    weighed = [ClaimEvidence(id="spark#1", same_item=True, probability=0.05, features={"coverage": 0.86})]
    by_form = status(False, "spark#1", weighed).model_copy(update={"score": 0.05, "threshold": 0.14})
    unrelated = status(False, "tom#2").model_copy(update={"score": 0.56})  # "says the same", another item
    shown = either_says(by_form, unrelated)
    assert not shown.known and shown.best_id == "spark#1" and not shown.said_by_another_item
    assert shown.evidence == weighed and shown.cosine_known is False
    nothing_weighed = ClaimStatus(text="c", known=False, score=0.0, threshold=0.14)
    assert either_says(nothing_weighed, unrelated).best_id == "tom#2"  # then as the cosine decision shows it


def test_a_figure_the_record_spells_in_words_is_no_new_number() -> None:
    """ "三倍" in the Chinese record and "3x" in the English claim: one figure, so the claim
    is known; with "4x" it stays new."""
    known = record("zh", "缓存 压缩 吞吐提升三倍")
    assert said("cache compression 3x", known, same={"zh"}, shape=form({"bias": 10.0})).known  # type: ignore[attr-defined]
    changed = said("cache compression 4x", known, same={"zh"}, shape=form({"bias": 10.0}))
    assert not changed.known and changed.new_numbers == ["4x"]  # type: ignore[attr-defined]


def test_a_figure_the_record_gives_for_another_quantity_is_a_new_number() -> None:
    """Probe, 5 December: "显存占用下降 71%" was known from a record whose 71% is a prefetch
    hit rate (its memory falls to 47GB), so a repeat with a new figure came out DUPLICATE."""
    known = record("ef", "ExpertFlow", "预取命中率从 92% 降到 71%", "显存占用降到 47GB")
    status = said("显存占用下降 71%", known, same={"ef"}, shape=form({"bias": 10.0}))
    assert not status.known and status.new_numbers == ["71%"]  # type: ignore[attr-defined]
    assert said("预取命中率降到 71%", known, same={"ef"}, shape=form({"bias": 10.0})).known  # type: ignore[attr-defined]


def test_another_item_is_heard_only_when_it_says_that_very_fact() -> None:
    section = record("doc", "§1.3 cache compression 10x", kind=Kind.doc_section)
    assert said("cache compression 10x", section, same=set()).known  # type: ignore[attr-defined]
    topic = record("doc2", "§1.3 cache eviction policies and scheduling", kind=Kind.doc_section)
    status = said("cache compression 10x", topic, same=set())
    assert not status.known and not status.evidence[0].same_item  # type: ignore[attr-defined]


def test_another_items_increment_saying_the_claim_leaves_it_new_and_is_shown() -> None:
    """A NEW item's claim the form said of another paper's summary was shown known: on the
    dev claim pairs that was right for 44 of 410 such claims (papers on one topic read alike).
    Only a living-doc section makes a claim of an item with no same-item record known; an
    increment or card saying it is shown, "but is not the same item"."""
    for kind in (Kind.increment, Kind.paper_card):
        other = record("other", "§1.3 cache compression 10x", kind=kind)
        status = said("cache compression 10x", other, same=set())
        assert not status.known and status.best_id == "other"  # type: ignore[attr-defined]
        assert status.said_by_another_item and status.how_said.endswith("but is not the same item")  # type: ignore[attr-defined]


def test_a_config_with_an_unknown_claim_said_feature_is_refused() -> None:
    bad = form({}).model_copy(update={"features": [*SAID_FEATURES[:-1], "vibes"]})
    with pytest.raises(ValueError, match="unknown claim_said features"):
        DedupeConfig(model="m", same_item=form({}).model_copy(update={"features": ["cosine"], "weights": [1.0],
                     "means": [0.0], "scales": [1.0]}), claim_known=form({}).model_copy(update={"features": ["cosine"],
                     "weights": [1.0], "means": [0.0], "scales": [1.0]}), claim_said=bad)  # fmt: skip


def status(known: bool, best: str, evidence: list[ClaimEvidence] | None = None) -> ClaimStatus:
    return ClaimStatus(
        text="c", known=known, score=0.9 if known else 0.1, threshold=0.5, best_id=best, evidence=evidence or []
    )


def test_a_claim_is_known_when_either_decision_says_so_and_the_forms_evidence_is_kept() -> None:
    """A point-by-point retelling in the other language: the form calls its sentence new,
    the judge's cosine of the same-item passage calls it known. Known, shown by the cosine
    decision's passage, with the form's evidence kept for refits. Called new by both, it
    is shown by the passage the form weighed."""
    weighed = [ClaimEvidence(id="zh", same_item=True, probability=0.1, features={"coverage": 0.8})]
    by_form, by_cosine = status(False, "zh", weighed), status(True, "zh#2")
    either = either_says(by_form, by_cosine)
    assert either.known and either.best_id == "zh#2" and either.cosine_known
    assert either.evidence == weighed
    neither = either_says(by_form, status(False, "doc#1"))
    assert not neither.known and neither.best_id == "zh" and neither.cosine_known is False
    assert neither.evidence == weighed
    form_only = either_says(status(True, "zh", weighed), status(False, "zh#2"))
    assert form_only.known and form_only.best_id == "zh" and form_only.cosine_known is False


def test_only_the_same_item_passages_nearest_by_the_judge_are_read_token_by_token() -> None:
    """A record of many passages (an abstract read sentence by sentence) had every one run
    through the token graph for every claim: only the judge's three nearest are now."""
    tokens = FakeTokenEncoder()
    abstract = record("abs", "t", "cache compression 10x", *(f"unrelated sentence number {n}" for n in range(6)))
    reader = PassageReader(FakeEncoder("fakejudge", 16), tokens)
    claim = "the cache compression 10x"
    status = judge_said(claim, hits(abstract, claim), {"abs"}, reader, COVERED)
    assert tokens.texts_seen == 1 + COVERAGE_CANDIDATES  # the claim, then three passages
    assert status.known


def test_a_claim_its_records_say_between_them_is_covered_by_them_together() -> None:
    """Monday's record gives the method, Tuesday's the figure; a third writer says both in
    one sentence. No passage alone covers the claim; the item's records do."""
    monday, tuesday = record("mon", "cache compression on long contexts"), record("tue", "reaches 10x")
    claim = "cache compression reaches 10x"
    [evidence] = said(claim, monday, tuesday, same={"mon", "tue"}).evidence  # type: ignore[attr-defined]
    assert evidence.features["coverage"] < 0.8
    assert evidence.features["record_coverage"] == pytest.approx(1.0, abs=1e-6)
    [alone] = said(claim, monday, same={"mon"}).evidence  # type: ignore[attr-defined]
    assert alone.features["record_coverage"] == pytest.approx(alone.features["coverage"])


def test_another_papers_record_adds_nothing_to_what_the_item_says() -> None:
    """The figure is in an unrelated record: the item's own passages still say half the claim."""
    monday, other = record("mon", "cache compression on long contexts"), record("oth", "reaches 10x")
    evidence = said("cache compression reaches 10x", monday, other, same={"mon"}).evidence  # type: ignore[attr-defined]
    own = next(e for e in evidence if e.same_item)
    assert own.features["record_coverage"] == pytest.approx(own.features["coverage"])
    assert own.features["record_coverage"] < 0.8


SURE = form({"bias": 10.0}, threshold=0.1)
UNSURE = form({"bias": -1.0}, threshold=0.1)  # said (0.27 ≥ 0.1), but not surely


def test_counts_a_surely_said_claim_adds_are_detail_shown_beside_it() -> None:
    """Another writer of the paper gives the dataset's size: the method is the record's, and
    the count is kept beside the known claim, not lost."""
    known = record("k", "a dataset of driving queries on Argoverse")
    detail = said("a dataset of 10,000 driving queries on Argoverse", known, same={"k"}, shape=SURE)
    assert detail.known and detail.extra_numbers == ["10k"] and detail.new_numbers == []  # type: ignore[attr-defined]
    [evidence] = detail.evidence  # type: ignore[attr-defined]
    assert evidence.added_counts and evidence.new_numbers == ["10k"]


def test_a_measured_result_a_changed_count_or_an_unsure_passage_keeps_the_number_new() -> None:
    known = record("k", "a dataset of driving queries on Argoverse served on 8 H200")
    for claim, shape in [
        ("a dataset of driving queries on Argoverse scoring 35%", SURE),  # a result is news
        ("a dataset of driving queries on Argoverse served on 4 H200", SURE),  # 8 → 4 changed
        ("a dataset of 10,000 driving queries on Argoverse", UNSURE),
    ]:
        status = said(claim, known, same={"k"}, shape=shape)
        assert not status.known and status.new_numbers, claim  # type: ignore[attr-defined]


def test_a_key_point_restated_with_the_figures_it_left_out_is_known() -> None:
    """Another writer's key point of the same result, with the figures that one left out:
    known, and the figure shown beside it. The same words as the record's summary, not a key
    point of it, leave the figure news; so does a figure that can be the key point's own
    changed (8 → 4 H200), however surely the key point says the rest."""
    claim = "cache compression lifts the success rate to 90%"
    key_points = ("cache compression lifts the success rate", "it needs no retraining")
    key_point = record("kp", "a compression paper", *key_points)
    restated = said(claim, key_point, same={"kp"}, shape=UNSURE)
    assert restated.known and restated.extra_numbers == ["90%"]  # type: ignore[attr-defined]
    [evidence] = restated.evidence  # type: ignore[attr-defined]
    assert evidence.key_point and not evidence.changes_a_figure
    summary = record("sm", "cache compression lifts the success rate")
    assert not said(claim, summary, same={"sm"}, shape=UNSURE).known  # type: ignore[attr-defined]
    deployed = record("dp", "a serving paper", "cache compression served on 8 H200", "it needs no retraining")
    changed = said("cache compression served on 4 H200", deployed, same={"dp"}, shape=SURE)
    assert not changed.known and changed.new_numbers == ["4"]  # type: ignore[attr-defined]


def test_a_claim_moving_its_item_to_a_later_stage_is_new() -> None:
    """A passage telling an earlier stage shares nearly every word with the claim: the form
    says it, and the merge it announces would be dropped as known."""
    known = record("k", "sglang suffix decoding", "sglang suffix decoding is under discussion, nothing merged")
    always = form({"bias": 10.0})
    merged = said("sglang suffix decoding was merged into main", known, same={"k"}, shape=always)
    assert not merged.known and merged.moved_on == "planned → merged"  # type: ignore[attr-defined]
    assert merged.evidence[0].moved_on == "planned → merged"  # type: ignore[attr-defined]
    assert not merged.said_by_another_item  # type: ignore[attr-defined]
    still = said("sglang suffix decoding is still under discussion", known, same={"k"}, shape=always)
    assert still.known and still.moved_on is None  # type: ignore[attr-defined]
    corrected = said("更正：sglang suffix decoding 并未合入", known, same={"k"}, shape=always)
    assert not corrected.known and corrected.moved_on == "reported → corrected"  # type: ignore[attr-defined]


def test_a_second_measurement_set_against_the_key_points_figure_is_new() -> None:
    """Probe, 6 December: "a rerun measured only a 28% TTFT drop, below the 35% in the release
    note" was known from the key point giving 35%, its 28% shown as detail, since it restates
    the 35%. A figure the claim sets against the record's for one quantity changes it; a figure
    for what the record states in words stays detail."""
    known = record(
        "vl", "vLLM v0.30", "the release note says TTFT drops 35% on Llama 3.3 70B", "chunked prefill is gone"
    )
    rerun = said("a community rerun measured only a 28% TTFT drop, below the 35% in the release note", known,
                 same={"vl"}, shape=UNSURE)  # fmt: skip
    assert not rerun.known and rerun.new_numbers == ["28%"]  # type: ignore[attr-defined]
    [evidence] = rerun.evidence  # type: ignore[attr-defined]
    assert evidence.changes_a_figure
    detail = said("the release note says TTFT drops 35%, and throughput rises 20%", known, same={"vl"}, shape=UNSURE)
    assert detail.known and detail.extra_numbers == ["20%"]  # type: ignore[attr-defined]


ALWAYS = form({"bias": 10.0})
FIRST = "specpipe decoding speed-up 3.1x on 8 H100s for llama 70b"  # the first report
CORRECTED = "correction: specpipe speed-up is 2.3x, not 3.1x"  # another writer's correction


def test_a_correction_another_record_already_states_is_known_from_that_record() -> None:
    """Probe, 6 December: a card's "v3 更正：加速 2.3 倍" was new against spark's 3.1x
    (moved on: reported → corrected), while tom's "3.1 倍应为 2.3 倍" was on record."""
    first, correction = record("spark", "specpipe", FIRST), record("tom", "specpipe fix", CORRECTED)
    claim = "Correction: specpipe decoding speed-up on 8 H100s for llama 70b is 2.3x, not 3.1x as first reported"
    alone = said(claim, first, same={"spark"}, shape=ALWAYS)
    assert not alone.known and alone.moved_on == "reported → corrected"  # type: ignore[attr-defined]
    both = said(claim, first, correction, same={"spark", "tom"}, shape=ALWAYS)
    assert both.known and both.best_id == "tom" and both.moved_on is None  # type: ignore[attr-defined]


def test_a_known_claim_is_shown_by_the_record_that_states_its_figure_not_one_it_contradicts() -> None:
    """Probe, 6 December: "2.3x …, not 3.1x as first reported" was known (tom states 2.3x) but
    shown as said by spark's "3.1x faster decoding", the figure it corrects."""
    first, correction = record("spark", "specpipe", FIRST), record("tom", "specpipe fix", CORRECTED)
    claim = "specpipe decoding speed-up is 2.3x on 8 H100s for llama 70b, not 3.1x as first reported"
    status = said(claim, first, correction, same={"spark", "tom"}, shape=ALWAYS)
    assert status.known and status.best_id == "tom"  # type: ignore[attr-defined]
    assert "2.3x" in status.best_text  # type: ignore[attr-defined]


def test_a_later_stage_no_record_tells_stays_new_beside_passages_that_tell_no_stage() -> None:
    """Another same-item passage that says nothing of a stage (a method's key point) is no
    record of the merge: only a passage telling the claim's stage replaces the one weighed."""
    discussed = record("k", "sglang suffix decoding", "sglang suffix decoding is under discussion, nothing merged")
    method = record("m", "sglang suffix decoding", "sglang suffix decoding reuses suffix trees")
    merged = said("sglang suffix decoding was merged into main", discussed, method, same={"k", "m"}, shape=ALWAYS)
    assert not merged.known and merged.moved_on == "planned → merged"  # type: ignore[attr-defined]


def test_the_cosine_decision_also_weighs_the_record_that_states_the_correction() -> None:
    """The cosine decision read the same passage as the form did: a correction known from
    tom's record was new against spark's nearer one, which tells the first report."""
    from test_dedupe_rules import CONFIG

    from kbsearch.dedupe.claims import judge_claim

    first, correction = record("spark", "specpipe", FIRST), record("tom", "specpipe fix", CORRECTED)
    claim = "Correction: specpipe decoding speed-up on 8 H100s for llama 70b is 2.3x, not 3.1x as first reported"
    vector = ENCODER.encode([claim])[0]
    alone = judge_claim(claim, vector, [], [first], CONFIG, restatement=True)
    assert not alone.known and alone.moved_on == "reported → corrected"
    both = judge_claim(claim, vector, [], [first, correction], CONFIG, restatement=True)
    assert both.known and both.best_id == "tom"


V1 = "kvshard shards the kv cache by head; ttft drops 41% at 128k context on 8 h100s"
V2 = "kvshard v2 update: ttft now drops 47% at 128k context on 8 h100s"


def test_a_known_claim_is_never_shown_by_a_passage_giving_its_quantity_another_figure() -> None:
    """Probe 6: a card's "TTFT 降低 47%" was known (spark's v2 states 47%) but shown as said by
    tom's "TTFT 降低 41%", though the claim quotes no earlier figure: a reviewer following
    the evidence saw a contradiction. The passage stating its figure is shown."""
    first, update = record("tom", "kvshard", V1), record("spark", "kvshard v2", V2)
    claim = "kvshard shards the kv cache by head, ttft drops 47% at 128k context on 8 h100s"
    status = said(claim, first, update, same={"tom", "spark"}, shape=ALWAYS)
    assert status.known and status.best_id == "spark"  # type: ignore[attr-defined]
    assert "47%" in status.best_text  # type: ignore[attr-defined]


def test_the_cosine_decision_never_shows_a_passage_giving_the_quantity_another_figure() -> None:
    from test_dedupe_rules import CONFIG

    from kbsearch.dedupe.claims import judge_claim

    first, update = record("tom", "kvshard", V1), record("spark", "kvshard v2", V2)
    claim = "kvshard shards the kv cache by head, ttft drops 47% at 128k context on 8 h100s"
    status = judge_claim(claim, ENCODER.encode([claim])[0], [], [first, update], CONFIG, restatement=True)
    assert status.known and status.best_id == "spark" and "47%" in (status.best_text or "")


def test_a_deals_later_stage_is_not_said_by_a_passage_telling_no_deal_stage() -> None:
    """Probe 30: "opened an in-depth review of Northwind's acquisition of Cascade" moved the
    deal on from "completes its acquisition", yet was known from another record's "signed a
    definitive agreement to buy Cascade", which tells no deal stage in the track's words."""
    closed = record("j2", "northwind cascade", "northwind completes its acquisition of cascade")
    agreed = record("j1", "northwind cascade", "northwind signed a definitive agreement to buy cascade")
    claim = "the european commission opened an in-depth review of northwind's acquisition of cascade"
    status = said(claim, closed, agreed, same={"j1", "j2"}, shape=ALWAYS)
    assert not status.known and status.moved_on == "closed → review"  # type: ignore[attr-defined]
