"""audit decides a pair near its line with the judge's token alignment, as check decides it.

Probe 39: audit joined a third party's cost study with a product launch at 0.71 ≥ 0.45 by
a form without the alignment, where check set them apart at 0.39 < 0.55 with it. Here the
unaligned form says "same item" at 0.70 whatever it reads (0.20 above its line), and the
aligned form says "same" exactly when the tokens align at 0.9 or more: two notes of other
words are set apart, a retelling of the same words in another order joined."""

from __future__ import annotations

import math
from pathlib import Path

from support.files import write_jsonl
from test_alignment import TRANSLATIONS, _aligned_only, _raw
from test_judge import judge_encoder, judged_models  # noqa: F401

from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.dedupe.audit_align import BAND, PairAligner
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.results import Match, Rule
from kbsearch.kb import KnowledgeBase
from kbsearch.models import resolve_model
from kbsearch.records import Kind

NOTES = [
    {"id": "ann/1", "instance": "ann", "date": "2026-03-02", "text": "alpha beta gamma delta epsilon"},
    # Other words: the aligned form sets it apart from ann/1.
    {"id": "bo/1", "instance": "bo", "date": "2026-03-03", "text": "zeta eta theta iota kappa"},
    # ann/1 told again in "another language" (word for word): the tokens align.
    {"id": "cy/1", "instance": "cy", "date": "2026-03-04", "text": "戊 丁 丙 乙 甲"},
]


def _config(probability: float) -> DedupeConfig:
    """The unaligned form says ``probability`` of every pair; the aligned one reads the alignment."""
    raw = _raw()
    summary = {**raw["same_item"], "weights": [0.0] * len(raw["same_item"]["weights"])}
    summary["bias"] = math.log(probability / (1 - probability))
    return DedupeConfig.model_validate({**raw, "same_item": summary, "aligned_same_item": _aligned_only()})


def _kb(tmp_path: Path) -> KnowledgeBase:
    models = {"encoder": FakeEncoder(), "judge": judge_encoder(), "tokens": FakeTokenEncoder(TRANSLATIONS)}
    kb = KnowledgeBase(tmp_path / "idx", resolve_model("fake"), create=True, **models)
    kb.ingest([write_jsonl(tmp_path / "notes.jsonl", NOTES)])
    return kb


def test_a_pair_the_alignment_sets_apart_is_not_clustered(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    with _kb(tmp_path) as kb:
        result = kb.audit(config=_config(0.70))
        clusters = {c.first_seen.id: [(m.id, m.reason) for m in c.repeats] for c in result.clusters}
    # Unaligned, all three were one cluster at 0.70 ≥ 0.50; aligned, bo/1 stands apart.
    assert clusters == {"ann/1": [("cy/1", "same item 1.00 ≥ 0.50 (aligned form)")]}


def test_explain_tells_audit_s_aligned_judgement(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    """check and audit now agree on the pair, so explain has no "audit judges otherwise" note."""
    with _kb(tmp_path) as kb:
        told = kb.explain("bo/1", "ann/1", config=_config(0.70))
    assert not told.match.same_item and told.match.form == "aligned"
    assert not any("audit judges" in note for note in told.notes), told.notes


def test_only_a_learned_decision_near_the_line_is_read_again(judged_models: Path) -> None:  # noqa: F811
    config = _config(0.70)
    aligner = PairAligner(config, FakeTokenEncoder)

    def match(probability: float, rule: Rule = Rule.learned, features: list[str] | None = None) -> Match:
        said = dict.fromkeys(features or ["cosine"], 0.0)
        fields = {"kind": Kind.increment, "title": "", "instance": None, "date": None, "score": 0.0, "lexical": 0.0}
        return Match(id="x", same_item=True, probability=probability, threshold=0.5, rule=rule, features=said, **fields)

    assert aligner.near_line(match(0.5 + BAND - 0.01)) and aligner.near_line(match(0.5 - BAND + 0.01))
    assert not aligner.near_line(match(0.5 + BAND + 0.01))  # far above: a clear join stays unaligned
    assert not aligner.near_line(match(0.7, Rule.identical_text))
    assert not aligner.near_line(match(0.7, features=["aligned"]))  # aligned already
    assert not PairAligner(config.model_copy(update={"aligned_same_item": None}), FakeTokenEncoder).near_line(
        match(0.7)
    )
