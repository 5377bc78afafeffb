"""The shipped scorer files decide real pairs the right way (fast: no model runs).

Each feature vector below was measured by the real models on the short notes
of ``test_alignment_real.py`` (project-written): a Chinese restatement of a
known English note (the same item), and Chinese notes on a neighbouring
method (another item). A claim vector is a key point against the passage that
says it, or against the closest passage when none does. A shipped form whose
weights were zeroed, inverted or replaced by a constant decides some of them
wrongly; a refit that moves the threshold a little does not.

Only the pairs each form gets right are listed: e5 alone calls the draft-tree
notes one item (it cannot tell them apart), which is why USE leads and e5
judges.
"""

from __future__ import annotations

import pytest

from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.config_files import load_config

USE, E5 = "use-multilingual-v3", "multilingual-e5-small"
CROSS = {"cross_lingual": 1.0, "lexical": 0.0, "shared_numbers": 0.0}


def pair(cosine: float, relative: float, names: float, gap: float, **rest: float) -> dict[str, float]:
    return {**CROSS, "cosine": cosine, "cross_cosine": cosine, "relative": relative,
            "shared_names": names, "length_gap": gap, **rest}  # fmt: skip


def aligned(value: float, relative: float) -> dict[str, float]:
    return {"aligned": value, "aligned_relative": relative, "cross_aligned": value, "cross_aligned_relative": relative}


def claim(cosine: float) -> dict[str, float]:
    return {"cosine": cosine, "cross_cosine": cosine, "cross_lingual": 1.0, "lexical": 0.0}


# The default pair (USE, judged by e5): USE's cosines, e5's judge cosines and token alignment.
BIT_PLANES = pair(0.6821, 0.5258, 0.6931, 1.1403, top=1.0, judge_cosine=0.9, judge_relative=0.0674, judge_top=1.0)
BIT_PLANES_ALIGNED = {**BIT_PLANES, **aligned(0.8476, 0.0896)}
CHUNKED_PREFILL = pair(0.6845, 0.4382, 0.0, 1.3715, top=1.0, judge_cosine=0.8619, judge_relative=0.0248, judge_top=1.0)
MAJORITY_VOTE_VS_EARLY_EXIT = pair(
    0.1462, 0.0442, 0.0, 1.3705, top=0.0, judge_cosine=0.825, judge_relative=-0.0015, judge_top=0.0
)
DISTILLED_VS_PRUNED_DRAFTS = pair(
    0.2306, 0.1283, 0.0, 1.6159, top=1.0, judge_cosine=0.844, judge_relative=0.0307, judge_top=1.0
)
# Prefill/decode disaggregation against a KV pool shared by agents: the plain form is fooled.
DISAGGREGATION_VS_SHARED_POOL = {
    **pair(0.4404, 0.2217, 0.6931, 1.1385, top=1.0, judge_cosine=0.8596, judge_relative=0.014, judge_top=0.0),
    **aligned(0.7789, 0.0194),
}

# claim_said, a claim against the passage covering most of it, measured in a replay of the
# dev digest feeds (`within`, 3 December 2026; feature values only): a same-paper passage
# saying the claim, one of the same paper that does not (the claim was a new fact), another
# paper's passage, and a known claim that the paper's passages say only between them.
SAID = {
    "cross_cosine": 0.0, "cross_lingual": 0.0, "cross_judge_cosine": 0.0, "cross_coverage": 0.0, "english_pair": 0.0,
}  # fmt: skip


def said(
    cosine: float, lexical: float, judge: float, coverage: float, record: float, names: float, same: float
) -> dict[str, float]:
    return {**SAID, "cosine": cosine, "lexical": lexical, "judge_cosine": judge, "coverage": coverage,
            "record_coverage": record, "names_missing": names, "numbers_missing": 0.0, "numbers_shared": 0.0,
            "same_item": same}  # fmt: skip


SAID_BY_ITS_PAPER = said(0.9415, 0.5882, 0.9854, 0.9674, 0.9727, names=0.0, same=1.0)
NEW_FACT_OF_ITS_PAPER = said(0.5066, 0.0952, 0.9231, 0.8708, 0.8708, names=0.0, same=1.0)
ANOTHER_PAPER = said(0.4336, 0.0789, 0.909, 0.8276, 0.8276, names=2.0, same=0.0)
SAID_BETWEEN_ITS_PASSAGES = said(0.5446, 0.1296, 0.956, 0.8939, 0.9143, names=0.0, same=1.0)
SAID_BY_NO_ONE_PASSAGE = {**SAID_BETWEEN_ITS_PASSAGES, "record_coverage": 0.8939}
# English against English, measured on the example corpus (4 December 2026): a loose retelling
# of spark's TriAttention key point, and a fact of the same item spark never states.
RETOLD_IN_ENGLISH = {**said(0.6624, 0.2727, 0.8966, 0.8722, 0.8728, names=0.0, same=1.0), "english_pair": 1.0}
NEW_ENGLISH_FACT = {**said(0.3567, 0.1111, 0.8391, 0.7616, 0.7717, names=1.0, same=1.0), "english_pair": 1.0}


# The key-point forms, on pairs kept by a replay of the claim-level dev pair `mixed` (English
# checks against a store of both languages; its fitting part, 5 December 2026; feature values
# only): an English retelling of a Chinese record that shares no name with it and sits below the
# whole neighbourhood (relative < 0) but above its own language's, and other papers, one in the
# other language and one in the item's.
def points(covered: float, back: float, relative: float, judge_relative: float) -> dict[str, float]:
    return {"claims_covered": covered, "claims_back": back, "language_relative": relative,
            "language_judge_relative": judge_relative}  # fmt: skip


RETOLD_NAMELESS = {
    **pair(0.6018, -0.0034, 0.0, 1.0286, top=0.0, judge_cosine=0.8637, judge_relative=-0.0199, judge_top=0.0),
    **aligned(0.7964, -0.0106),
    **points(0.5612, 0.6018, 0.041, 0.0212),
}
RETOLD_PLAIN = {
    **pair(0.6649, 0.0249, 0.0, 1.373, top=0.0, judge_cosine=0.8478, judge_relative=-0.0283, judge_top=0.0),
    **points(0.7282, 0.6709, 0.105, 0.0181),
}
OTHER_PAPER_ACROSS = {
    **pair(0.4992, 0.0645, 0.0, 0.9033, top=1.0, judge_cosine=0.8251, judge_relative=-0.0353, judge_top=0.0),
    **points(0.44, 0.2997, 0.0892, -0.0124),
}
OTHER_PAPER_ALONGSIDE = {
    **pair(0.6001, -0.0181, 0.0, 0.0153, top=0.0, judge_cosine=0.8895, judge_relative=0.0103, judge_top=0.0),
    "cross_cosine": 0.0, "cross_lingual": 0.0, "lexical": 0.125,
    **aligned(0.837, 0.0252), "cross_aligned": 0.0, "cross_aligned_relative": 0.0,
    **points(0.4347, 0.4423, 0.0582, 0.0119),
}  # fmt: skip

# e5 alone: its own cosines in every feature.
E5_BIT_PLANES = pair(0.9079, 0.0719, 0.6931, 1.1403, top=1.0)
E5_DISAGGREGATION_VS_SHARED_POOL = pair(0.8521, 0.0109, 0.6931, 1.1385, top=0.0)

CASES = [
    # (model, judge, scorer, features, the same item / claim known)
    (USE, E5, "same_item", BIT_PLANES, True),
    (USE, E5, "same_item", CHUNKED_PREFILL, True),
    (USE, E5, "same_item", MAJORITY_VOTE_VS_EARLY_EXIT, False),
    (USE, E5, "aligned_same_item", BIT_PLANES_ALIGNED, True),
    (USE, E5, "aligned_same_item", DISAGGREGATION_VS_SHARED_POOL, False),
    (USE, E5, "aligned_same_item", {**DISTILLED_VS_PRUNED_DRAFTS, **aligned(0.7488, 0.0287)}, False),
    (USE, E5, "aligned_claims_same_item", RETOLD_NAMELESS, True),
    (USE, E5, "aligned_claims_same_item", OTHER_PAPER_ALONGSIDE, False),
    (USE, E5, "claims_same_item", RETOLD_PLAIN, True),
    (USE, E5, "claims_same_item", OTHER_PAPER_ACROSS, False),
    (USE, E5, "judge_claim_known", claim(0.8636), True),  # decode reads the high planes first
    (USE, E5, "judge_claim_known", claim(0.824), False),  # "1.7x decode throughput on H100", said nowhere
    (USE, E5, "claim_said", SAID_BY_ITS_PAPER, True),
    (USE, E5, "claim_said", NEW_FACT_OF_ITS_PAPER, False),
    (USE, E5, "claim_said", ANOTHER_PAPER, False),
    (USE, E5, "claim_said", SAID_BETWEEN_ITS_PASSAGES, True),
    (USE, E5, "claim_said", SAID_BY_NO_ONE_PASSAGE, False),  # the same, were its record read passage by passage
    (USE, E5, "claim_said", RETOLD_IN_ENGLISH, True),  # "Keys are rewritten as trigonometric frequency components…"
    (USE, E5, "claim_said", NEW_ENGLISH_FACT, False),  # "An SGLang integration was merged upstream this week…"
    (USE, E5, "claim_known", claim(0.6829), True),
    (USE, E5, "claim_known", claim(0.2632), False),
    (USE, None, "same_item", BIT_PLANES, True),
    (USE, None, "same_item", DISTILLED_VS_PRUNED_DRAFTS, False),
    (USE, None, "claim_known", claim(0.4831), True),
    (USE, None, "claim_known", claim(0.2062), False),
    (E5, None, "same_item", E5_BIT_PLANES, True),
    (E5, None, "same_item", E5_DISAGGREGATION_VS_SHARED_POOL, False),
    (E5, None, "claim_known", claim(0.8901), True),
    (E5, None, "claim_known", claim(0.8105), False),
]


def shipped(model: str, judge: str | None) -> DedupeConfig:
    return load_config(None, model, judge=judge)


@pytest.mark.parametrize(("model", "judge", "scorer", "features", "same"), CASES)
def test_a_shipped_form_decides_a_measured_pair_right(
    model: str, judge: str | None, scorer: str, features: dict[str, float], same: bool
) -> None:
    form = getattr(shipped(model, judge), scorer)
    assert form is not None, f"{model}+{judge} ships no {scorer}"
    probability = form.probability({name: features[name] for name in form.features})
    assert (probability >= form.threshold) is same, (scorer, round(probability, 4), form.threshold)


def test_the_pair_picks_the_aligned_form_when_the_features_have_it() -> None:
    config = shipped(USE, E5)
    assert config.same_item_for(DISAGGREGATION_VS_SHARED_POOL) is config.aligned_same_item
    assert config.same_item_for(BIT_PLANES) is config.same_item
