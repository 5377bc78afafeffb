"""A dedupe config whose two same-item forms each say one thing whatever they read, so
that a test shows which form a command reads: the summary form (``same_item``, what
audit reads of whole records) and the key-point form (``claims_same_item``, check's)."""

from __future__ import annotations

from conftest import fake_config

from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.scorer import Scorer

SURE = 40.0
"""A bias no feature of the fake encoder's moves across the threshold."""


def forced_forms(*, summary_same: bool) -> DedupeConfig:
    """The summary form says "same item" when ``summary_same``, the key-point form the other."""
    config = fake_config()
    summary = config.same_item.model_copy(update={"bias": SURE if summary_same else -SURE})
    key_points = key_point_form(summary).model_copy(update={"bias": -SURE if summary_same else SURE})
    return config.model_copy(update={"same_item": summary, "claims_same_item": key_points})


def key_point_form(summary: Scorer) -> Scorer:
    """``summary`` read by key points as well: the key-point features added, weighing nothing."""
    return summary.model_copy(
        update={
            "features": [*summary.features, "claims_covered", "claims_back"],
            "weights": [*summary.weights, 0.0, 0.0],
            "means": [*summary.means, 0.0, 0.0],
            "scales": [*summary.scales, 1.0, 1.0],
        }
    )
