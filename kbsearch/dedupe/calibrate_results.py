"""What ``kbsearch calibrate`` reports: each fitted decision with its scores, and the resulting config.

A score is precision, recall and F1 over labelled examples (``prf``), on the data a decision was
fitted on and on the data it was not (later days, test pairs); ``RuleErrors`` splits the held-out
errors by the fixed rule that settled them, which no fit changes."""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel

from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.scorer import Scorer


class Score(BaseModel):
    examples: int
    precision: float
    recall: float
    f1: float


class RuleErrors(BaseModel):
    """The held-out errors, and how many of them a fixed rule settled (not the fitted
    decision, so no fit changes them: calibrate fits the pairs the rules leave open)."""

    missed: int = 0
    """Repeats called new."""
    false_matches: int = 0
    """New items called repeats."""
    by_rule: dict[str, int] = {}
    """Each fixed rule → the errors it settled (a miss: every compared record of the
    item was set apart by a rule; a false match: a rule called a record the item)."""


class Fitted(BaseModel):
    decision: str
    """``same_item``, ``aligned_same_item``, ``claims_same_item``, ``aligned_claims_same_item``
    or ``claim_known``."""
    scorer: Scorer
    fitted: Score
    """On the data it was fitted on."""
    held_out: Score | None = None
    """On data it was not fitted on (later days, or the test pairs)."""
    held_out_errors: RuleErrors | None = None
    """The held-out items' errors, and those a fixed rule settled (streams only)."""
    start_held_out: Score | None = None
    """The starting config's decision (the model's own, or ``--config``'s) on the same
    held-out part, when it was fitted and reads features the part has: did the fit help?"""


class Calibration(BaseModel):
    model: str
    fitted: list[Fitted]
    config: DedupeConfig
    """The model's config with the fitted decisions in place."""
    unfitted: list[str] = []
    """Required decisions no input fitted, nor the starting config: the config is
    refused by the commands that read them until they are fitted."""
    notes: list[str] = []
    """What to know before using the figures or the config (too few examples, …)."""
    written: str | None = None
    """The file the config was written to (``--out``)."""


def prf(predicted: np.ndarray, truth: np.ndarray) -> Score:
    tp = int((predicted & truth).sum())
    precision = tp / max(1, int(predicted.sum()))
    recall = tp / max(1, int(truth.sum()))
    f1 = 2 * precision * recall / max(1e-9, precision + recall)
    return Score(examples=len(truth), precision=round(precision, 4), recall=round(recall, 4), f1=round(f1, 4))
