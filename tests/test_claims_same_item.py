"""Issue 25: an item with key points (要点) is decided by how its key points meet the
known record's passages (``claims_same_item``), not by its summary alone. One
writer's summary leads with another aspect than the known record's, while its key
points restate the record's one by one. With the fake encoder and a fake judge."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pytest
from support.files import write_jsonl
from test_dedupe_rules import CONFIG, common, embedded
from test_judge import FAKE_JUDGE_DEDUPE, judge_encoder, judged_models  # noqa: F401

from fake_encoder import FakeEncoder
from kbsearch.dedupe.calibrate import fit_same_item
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.features import CLAIMS_FEATURES, INDEX_FEATURES, claims_features
from kbsearch.dedupe.replay import Checked, PairExample, ReplayResult
from kbsearch.dedupe.results import Rule, Verdict
from kbsearch.dedupe.rules import Embedded, compare_all
from kbsearch.kb import KnowledgeBase
from kbsearch.models import resolve_model
from kbsearch.records import Kind

POINTS = ["alpha beta gamma delta epsilon", "zeta eta theta iota kappa"]
KNOWN = [
    {"id": "k-same", "instance": "jay", "date": "2026-09-17", "text": "lambda mu nu xi omicron", "claims": POINTS},
    {"id": "k-topic", "instance": "jay", "date": "2026-09-17", "text": "pi rho sigma tau upsilon",
     "claims": ["phi chi psi omega alpha"]},
]  # fmt: skip
ITEM = {"id": "i-new", "instance": "tom", "date": "2026-09-18", "text": "one two three four five", "claims": POINTS}


def _raw() -> dict:
    return json.loads(FAKE_JUDGE_DEDUPE.read_text(encoding="utf-8"))


def _claims_only(feature: str = "claims_covered") -> dict:
    """A decision that says "same" exactly when the key points meet the record at 0.9 or more."""
    return {
        "features": [feature],
        "weights": [100.0],
        "means": [0.9],
        "scales": [1.0],
        "bias": 0.0,
        "threshold": 0.5,
        "fitted_on": f"not fitted: a test rule, {feature} >= 0.9",
    }


def _check(tmp_path: Path, config: DedupeConfig) -> tuple[Verdict, dict]:
    encoders = {"encoder": FakeEncoder(), "judge": judge_encoder()}
    with KnowledgeBase(tmp_path / "idx", resolve_model("fake"), create=True, **encoders) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        item = kb.check(str(write_jsonl(tmp_path / "item.jsonl", [ITEM])), config=config).items[0]
    return item.verdict, {m.id: m for m in item.matches}


def test_an_item_whose_key_points_restate_a_record_is_that_item_under_the_claims_form(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    plain = DedupeConfig.model_validate(_raw())
    verdict, matches = _check(tmp_path / "a", plain)
    assert verdict is Verdict.NEW and not matches["k-same"].same_item  # the summaries share nothing
    claims = DedupeConfig.model_validate({**_raw(), "claims_same_item": _claims_only()})
    verdict, matches = _check(tmp_path / "b", claims)
    assert matches["k-same"].same_item and matches["k-same"].rule is Rule.learned
    assert matches["k-same"].features["claims_covered"] == pytest.approx(1.0, abs=1e-4)
    assert not matches["k-topic"].same_item
    assert verdict is Verdict.DUPLICATE  # every key point is the record's


def test_claims_features_read_each_side_s_key_points_against_the_other_side() -> None:
    e = np.eye(4, dtype=np.float32)
    half = (e[0] + e[3]) / np.sqrt(2)
    # The item's two points: one the record half says, one it does not; the record's one point the item says.
    found = claims_features(np.stack([half, e[1]]), np.stack([half, e[1], e[2]]), e[[0]], e[[0, 3]])
    assert found == {"claims_covered": pytest.approx(np.sqrt(0.5)), "claims_back": pytest.approx(np.sqrt(0.5))}
    # An update: one point known, three new; the known one still carries the item.
    update = claims_features(e[[0, 1, 2, 3]], e[[0, 1, 2, 3]], e[[0]], e[[0]])
    assert update["claims_covered"] == pytest.approx(1.0)


def test_only_an_item_with_key_points_and_their_vectors_gets_the_claims_features() -> None:
    from kbsearch.dedupe.rules import compare_all

    config = DedupeConfig.model_validate({**_raw(), "judge": None, "same_item": _raw()["same_item"] | {
        "features": ["cosine"], "weights": [1.0], "means": [0.0], "scales": [1.0]}})  # fmt: skip
    known = [embedded("k", "", KNOWN[0]["text"], kind=Kind.increment, claims=POINTS)]
    with_points = embedded("i", "", ITEM["text"], kind=Kind.increment, claims=POINTS)
    without = embedded("j", "", ITEM["text"], kind=Kind.increment)
    whole_only = Embedded.whole_only(with_points.record, with_points.whole)
    found = {e.record.id: compare_all(e, known, config, lambda _: 1)[0].features for e in (with_points, without)}
    found["whole"] = compare_all(whole_only, known, config, lambda _: 1)[0].features
    assert "claims_covered" in found["i"] and "claims_back" in found["i"]
    assert "claims_covered" not in found["j"] and "claims_covered" not in found["whole"]


def test_the_claims_forms_are_chosen_by_the_features_a_pair_has() -> None:
    both = DedupeConfig.model_validate(
        {**_raw(), "claims_same_item": _claims_only(), "aligned_claims_same_item": _claims_only("claims_back")}
    )
    assert both.same_item_for({"claims_covered": 1.0}) is both.claims_same_item
    assert both.same_item_for({"claims_covered": 1.0, "aligned": 0.9}) is both.aligned_claims_same_item
    assert both.same_item_for({"cosine": 1.0}) is both.same_item


def test_a_claims_form_with_an_unknown_feature_or_a_judge_feature_and_no_judge_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown claims same-item features"):
        DedupeConfig.model_validate({**_raw(), "claims_same_item": _claims_only("claims_sideways")})
    reads_judge = _claims_only("judge_cosine")
    with pytest.raises(ValueError, match="read a judge model"):
        DedupeConfig.model_validate({**_raw(), "judge": None, "same_item": _raw()["same_item"] | {
            "features": ["cosine"], "weights": [1.0], "means": [0.0], "scales": [1.0]},
            "claims_same_item": reads_judge})  # fmt: skip
    with pytest.raises(ValueError, match="read a judge model"):
        DedupeConfig.model_validate({**_raw(), "judge": None, "same_item": _raw()["same_item"] | {
            "features": ["cosine"], "weights": [1.0], "means": [0.0], "scales": [1.0]},
            "claims_same_item": _claims_only("language_judge_relative")})  # fmt: skip


def _stream(same_is_close: bool) -> ReplayResult:
    """Ten checked items q-0..q-9 with one compared record each; in one stream every item was
    seen and its record is close, in the other none was and its record is far."""
    day = dt.date(2026, 9, 1)
    value = 0.95 if same_is_close else 0.2
    features = {name: value for name in (*INDEX_FEATURES, *CLAIMS_FEATURES)}
    pairs = [
        PairExample(item=f"q-{n}", known=f"k-{n}", date=day, features=features, same=same_is_close,
                    rule=Rule.learned, exact_same=same_is_close)
        for n in range(10)
    ]  # fmt: skip
    checked = [
        Checked(id=f"q-{n}", date=day, seen_before=same_is_close, verdict=Verdict.NEW, candidate_found=True)
        for n in range(10)
    ]
    return ReplayResult(checked=checked, pairs=pairs)


def test_a_fit_over_two_streams_keeps_their_items_apart_though_they_share_ids() -> None:
    """The claim-level pairs all number their checks q-0, q-1, ...: one stream's seen q-0 made
    the other's unseen q-0 count as seen too, and the threshold was chosen on that."""
    found = fit_same_item([_stream(True), _stream(False)], None, "two streams", claims=True)
    assert found.decision == "claims_same_item"
    assert found.fitted.precision == 1.0 and found.fitted.recall == 1.0
    assert set(found.scorer.features) >= {"claims_covered", "claims_back"}


def test_explain_reads_the_pair_by_the_form_check_decides_it_by(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """explain's "learned" row must weigh what compare weighs: under the claims form the
    pair is one item by its key points, which the plain form's row would call two."""
    claims = DedupeConfig.model_validate({**_raw(), "claims_same_item": _claims_only()})
    encoders = {"encoder": FakeEncoder(), "judge": judge_encoder()}
    with KnowledgeBase(tmp_path / "idx", resolve_model("fake"), create=True, **encoders) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", [*KNOWN, ITEM])])
        explained = kb.explain("i-new", "k-same", config=claims)
    learned = next(f for f in explained.rules if f.rule == "learned")
    assert explained.match.same_item and learned.says is True, learned.detail
    assert "claims_covered 1.00" in learned.detail


def _stream_with_key_points() -> list[dict]:
    """Four days: each known item's key points come back with a reworded summary, beside
    an unseen item, so the fit meets pairs of one item and of two, all with key points."""
    words = [f"word{n}" for n in range(16)]
    lines = []
    for day in range(1, 5):
        points = [" ".join(words[(day * 3 + j) % 16 : (day * 3 + j) % 16 + 4]) for j in range(2)]
        base = {"date": f"2026-10-0{day}", "claims": points}
        lines.append({**base, "id": f"k{day}", "text": f"stored summary {day}", "item": f"p{day}", "role": "known"})
        lines.append({**base, "id": f"q{day}", "text": f"retold {day} anew", "item": f"p{day}", "role": "check"})
        unseen = {"claims": [f"rho{day} sigma{day} tau{day}"], "item": f"u{day}", "role": "check"}
        lines.append({**base, **unseen, "id": f"u{day}", "text": f"another thing {day}"})
    return lines


def test_calibrate_fits_the_key_point_form_from_streams_with_key_points(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    from kbsearch.kb.calibration import calibrate

    with_points = write_jsonl(tmp_path / "points.jsonl", _stream_with_key_points())
    result = calibrate([with_points], "fake", until="half")
    fitted = {f.decision: f for f in result.fitted}
    assert "claims_same_item" in fitted, sorted(fitted)
    assert result.config.claims_same_item == fitted["claims_same_item"].scorer
    assert "points.jsonl" in fitted["claims_same_item"].scorer.fitted_on
    assert set(CLAIMS_FEATURES) <= set(fitted["claims_same_item"].scorer.features)
    summaries = [{k: v for k, v in line.items() if k != "claims"} for line in _stream_with_key_points()]
    plain = write_jsonl(tmp_path / "plain.jsonl", summaries)
    given = DedupeConfig.model_validate({**_raw(), "claims_same_item": _claims_only()})
    (tmp_path / "given.json").write_text(given.model_dump_json(), encoding="utf-8")
    kept = calibrate([plain], "fake", until="half", config=str(tmp_path / "given.json"))
    assert "claims_same_item" not in {f.decision for f in kept.fitted}
    assert kept.config.claims_same_item == given.claims_same_item  # no key points: left as given


def test_a_record_in_the_other_language_is_read_against_the_candidates_of_its_language() -> None:
    """In a store of both languages an English item's nearest records are English, and they sank
    its Chinese record below the neighbourhood (``relative``); ``language_relative`` reads that
    record against the Chinese candidates alone, and an English one against the English alone."""
    points = ["paged prefix cache reuse across requests", "radix tree lookup of shared prefixes"]
    item = embedded("i", "", "prefix cache reuse for serving", Kind.increment, claims=points)
    chinese = embedded("zh-1", "", "跨请求复用前缀缓存，用基数树查找共享前缀", Kind.increment)
    other_chinese = embedded("zh-2", "", "量化权重以节省显存", Kind.increment)
    english = [
        embedded(f"en-{n}", "", f"prefix cache reuse for serving, variant {n}", Kind.increment) for n in range(3)
    ]
    known = [chinese, other_chinese, *english]
    matches = {m.id: m for m in compare_all(item, known, CONFIG, common)}
    cosines = {k.record.id: float(item.whole @ k.whole) for k in known}
    zh_mean = (cosines["zh-1"] + cosines["zh-2"]) / 2
    en_mean = sum(cosines[f"en-{n}"] for n in range(3)) / 3
    zh = matches["zh-1"].features
    assert zh["language_relative"] == pytest.approx(cosines["zh-1"] - zh_mean, abs=1e-3)
    assert zh["language_relative"] > zh["relative"]  # the English neighbours no longer weigh on it
    en = matches["en-0"].features
    assert en["language_relative"] == pytest.approx(cosines["en-0"] - en_mean, abs=1e-3)
    plain = compare_all(embedded("j", "", "prefix cache reuse for serving", Kind.increment), known, CONFIG, common)
    assert all("language_relative" not in m.features for m in plain)  # read for an item with key points only
