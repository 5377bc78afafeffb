"""A learned yes/no decision: logistic regression over named features.

The gate asks two questions that no single similarity answers well across
languages and writers: is this known record *the same item*, and does this
known passage *say the same* as a claim. Each is a logistic regression whose
coefficients are data (JSON, validated on load, never pickled), fitted by
``kbsearch calibrate`` on labelled examples and shipped per model, since each
model has its own cosine scale. Its output is a probability, shown beside
its threshold ("same item 0.93 ≥ 0.50").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator


class Scorer(BaseModel):
    """p = σ(bias + Σ weightᵢ · (xᵢ − meanᵢ) / scaleᵢ), and yes when p ≥ threshold."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    features: list[str] = Field(min_length=1)
    """Feature names, in the order of ``weights`` (see ``kbsearch.dedupe.features``)."""
    weights: list[float]
    means: list[float]
    """Each feature's mean on the fitting data: features enter standardised."""
    scales: list[float]
    """Each feature's standard deviation on the fitting data (1 when constant)."""
    bias: float
    threshold: float = Field(gt=0.0, lt=1.0)
    """The probability at or above which the answer is yes."""
    fitted_on: str
    """Which data and which part of it (days, rows) the coefficients were fitted on."""
    score: str = ""
    """What the fitted decision scored, and on which data it was not fitted on."""

    @model_validator(mode="after")
    def _aligned(self) -> Scorer:
        n = len(self.features)
        if not len(self.weights) == len(self.means) == len(self.scales) == n:
            raise ValueError(f"features, weights, means and scales must have one entry each ({n} features)")
        if any(s <= 0 for s in self.scales):
            raise ValueError("every scale must be positive")
        if len(set(self.features)) != n:
            raise ValueError("a feature is listed twice")
        return self

    def probability(self, values: Mapping[str, float]) -> float:
        """The probability for one example given as name → value."""
        row = np.array([[values[name] for name in self.features]], dtype=np.float64)
        return float(self.probabilities(row)[0])

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """Probabilities for rows whose columns follow ``features``."""
        z = self.bias + ((rows - np.array(self.means)) / np.array(self.scales)) @ np.array(self.weights)
        return 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))

    def decide(self, probability: float) -> bool:
        return probability >= self.threshold


def fit_logistic(
    names: Sequence[str],
    rows: np.ndarray,
    labels: np.ndarray,
    *,
    fitted_on: str,
    l2: float = 1.0,
    threshold: float = 0.5,
    iterations: int = 50,
    sample_weight: np.ndarray | None = None,
) -> Scorer:
    """Newton's method (IRLS) on standardised features with an L2 penalty
    (``l2`` on the weights, not the bias): a convex fit with one answer.
    ``sample_weight`` weighs each row's loss (default 1)."""
    rows = np.asarray(rows, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[1] != len(names) or len(rows) != len(labels):
        raise ValueError("rows must be a matrix with one column per name and one row per label")
    if labels.min(initial=1.0) == labels.max(initial=0.0):
        raise ValueError("fitting needs examples of both answers")
    means = rows.mean(axis=0)
    scales = rows.std(axis=0)
    scales[scales < 1e-9] = 1.0
    x = np.hstack([np.ones((len(rows), 1)), (rows - means) / scales])
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0
    sw = np.ones(len(rows)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -40.0, 40.0)))
        gradient = x.T @ (sw * (p - labels)) + penalty * w
        hessian = (x * (sw * p * (1 - p))[:, None]).T @ x + np.diag(penalty) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return Scorer(
        features=list(names),
        weights=[round(float(v), 6) for v in w[1:]],
        means=[round(float(v), 6) for v in means],
        scales=[round(float(v), 6) for v in scales],
        bias=round(float(w[0]), 6),
        threshold=threshold,
        fitted_on=fitted_on,
    )
