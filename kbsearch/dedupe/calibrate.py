"""``kbsearch calibrate``: fit the same-item threshold on labelled pairs.

The input is a TSV with a header row and columns ``a``, ``b``, ``label``
(1 = same meaning) and optionally ``lang`` (``zh-zh``, ``en-en``, ``zh-en``),
the format of ../shared/eval/pairs/. Same-language pairs fit ``same_item``
(cosine + lexical overlap); cross-language pairs fit
``same_item_cross_lingual`` (cosine alone), exactly as ``check`` scores them.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from kbsearch.dedupe.config import DedupeConfig
from kbsearch.embed import Encoder
from kbsearch.errors import KbError
from kbsearch.textsim import jaccard, language, lexical_tokens


class Point(BaseModel):
    threshold: float
    precision: float
    recall: float
    f1: float


class Calibration(BaseModel):
    pairs: int
    field: str
    """The DedupeConfig field that was fitted."""
    default: Point
    """Precision, recall and F1 at the threshold in use before calibration."""
    best: Point
    config: DedupeConfig
    """The config with the fitted threshold."""


def read_pairs(path: Path) -> list[dict[str, str]]:
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    except (OSError, UnicodeDecodeError) as err:
        raise KbError(f"cannot read the pairs: {err}", path=str(path)) from err
    if not rows or not {"a", "b", "label"} <= set(rows[0]):
        raise KbError(
            "expected a TSV with a header row and columns a, b, label",
            path=str(path),
            hint="see ../shared/eval/pairs/ for the format",
        )
    for number, row in enumerate(rows, start=2):
        if row["label"] not in {"0", "1"}:
            raise KbError(f"label must be 0 or 1, not {row['label']!r}", path=str(path), line=number)
    return rows


def pair_scores(rows: list[dict[str, str]], encoder: Encoder, config: DedupeConfig) -> tuple[np.ndarray, bool]:
    """Scores as check computes them, and whether the pairs are cross-lingual."""
    a = encoder.encode([r["a"] for r in rows])
    b = encoder.encode([r["b"] for r in rows])
    cross = [language(r["a"]) != language(r["b"]) for r in rows]
    cosine = np.array([config.calibrated(float(c), x) for c, x in zip(np.sum(a * b, axis=1), cross, strict=True)])
    lexical = np.array(
        [
            0.0 if c else jaccard(lexical_tokens(r["a"]), lexical_tokens(r["b"]))
            for r, c in zip(rows, cross, strict=True)
        ]
    )
    return cosine + config.lexical_weight * lexical, sum(cross) > len(rows) / 2


def point_at(scores: np.ndarray, truth: np.ndarray, threshold: float) -> Point:
    predicted = scores >= threshold
    tp = int((predicted & truth).sum())
    precision = tp / max(1, int(predicted.sum()))
    recall = tp / max(1, int(truth.sum()))
    f1 = 2 * precision * recall / max(1e-9, precision + recall)
    return Point(threshold=round(threshold, 4), precision=round(precision, 4), recall=round(recall, 4), f1=round(f1, 4))


def best_point(scores: np.ndarray, truth: np.ndarray) -> Point:
    candidates = np.unique(np.round(scores, 4))
    points = [point_at(scores, truth, float(t)) for t in candidates]
    return max(points, key=lambda p: (p.f1, p.threshold))


def calibrate(path: Path, encoder: Encoder, config: DedupeConfig | None = None) -> Calibration:
    config = config or DedupeConfig()
    rows = read_pairs(path)
    scores, cross = pair_scores(rows, encoder, config)
    truth = np.array([r["label"] == "1" for r in rows])
    field = "same_item_cross_lingual" if cross else "same_item"
    best = best_point(scores, truth)
    return Calibration(
        pairs=len(rows),
        field=field,
        default=point_at(scores, truth, getattr(config, field)),
        best=best,
        config=config.model_copy(update={field: best.threshold}),
    )
