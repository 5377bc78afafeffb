"""Check aligns a candidate past the aligned cap whose unaligned decision lies near the
line (``kbsearch.dedupe.beyond_cap``), so a verdict does not turn on a rank at the cap.
With the fake encoders: one word, one token vector."""

from __future__ import annotations

import json
import math
from pathlib import Path

from support.files import write_jsonl
from test_alignment import _aligned_only
from test_judge import FAKE_JUDGE_DEDUPE, judge_encoder, judged_models  # noqa: F401

from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.kb import KnowledgeBase
from kbsearch.models import resolve_model

KNOWN = [
    # Nearest to the item by the judge's cosine: the one candidate the cap of 1 aligns.
    {"id": "k-near", "instance": "jay", "date": "2026-09-17", "text": "lantern harbor ferry tides quarry"},
    # Past the cap: nothing of the item's, which the alignment sees and the constant unaligned form does not.
    {"id": "k-far", "instance": "jay", "date": "2026-09-17", "text": "violin orchard meadow copper"},
]
ITEM = {"id": "i-one", "instance": "tom", "date": "2026-09-18", "text": "lantern harbor ferry tides granite"}


def _config(unaligned: float) -> DedupeConfig:
    """Aligned form: same at alignment 0.9 or more; unaligned form: every pair at ``unaligned``
    against 0.5; token vectors for the nearest candidate only."""
    raw = json.loads(FAKE_JUDGE_DEDUPE.read_text(encoding="utf-8"))
    constant = {**raw["same_item"], "weights": [0.0] * 4, "bias": math.log(unaligned / (1 - unaligned))}
    return DedupeConfig.model_validate(
        {**raw, "same_item": constant, "aligned_same_item": _aligned_only(), "aligned_candidates": 1}
    )


def _checked(tmp_path: Path, config: DedupeConfig) -> tuple[dict, str]:
    models = {"encoder": FakeEncoder(), "judge": judge_encoder(), "tokens": FakeTokenEncoder()}
    with KnowledgeBase(tmp_path / "idx", resolve_model("fake"), create=True, **models) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        item_file = str(write_jsonl(tmp_path / "item.jsonl", [ITEM]))
        matches = {m.id: m for m in kb.check(item_file, config=config).items[0].matches}
        why = kb.explain(item_file, "k-far", config, file_item=1).form_why
    return matches, why


def test_a_candidate_past_the_cap_near_the_line_is_decided_aligned(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    """The unaligned form joins k-far at 0.6 (0.1 above its line); k-far is past the cap of 1,
    so it was decided by that form alone. Aligned, it is set apart, and explain says so."""
    matches, why = _checked(tmp_path, _config(0.6))
    assert "aligned" in matches["k-near"].features  # the nearest, under the cap
    far = matches["k-far"]
    assert "aligned" in far.features and far.features["aligned"] < 0.9
    assert not far.same_item, far.reasons
    assert why.startswith("aligned ")


def test_a_candidate_past_the_cap_far_from_the_line_stays_unaligned(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    """At 0.95 (0.45 above the line, past the band) k-far is decided as before: no token
    alignment is read for it, and explain says it is not among those check aligns."""
    matches, why = _checked(tmp_path, _config(0.95))
    far = matches["k-far"]
    assert "aligned" not in far.features and far.same_item
    assert "B is not among the candidates check aligns" in why and "within 0.3 of the line" in why
