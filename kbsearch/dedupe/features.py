"""What the same-item decision reads about a pair (item, known record).

Every feature is chosen to mean the same across languages and writers:

- ``cosine``: the two whole records' cosine under the index's model, and
  ``cross_cosine``, the same number when the languages differ (0 otherwise),
  so the model learns the cross-language scale apart (it is lower for the
  same meaning).
- ``relative``: the cosine minus the mean cosine of the item's other
  candidates: a repeat stands out from the item's neighbourhood, while a
  record on the same topic sits among many others like it.
- ``lexical``: overlap of Chinese bigrams and English words, within one
  language only.
- ``shared_names``: coined Latin-script names (DES, TriAttention, C²KV), and
  hyphenated ones whole beside their parts (MCP-Bench: mcp-bench, mcp),
  both texts hold, each weighted by its rarity in the index: both languages
  write a system's name alike, and a name many records hold says only the topic.
- ``shared_numbers``: result numbers both texts state, units normalised
  (10.7x = 10.7倍 = 10.7×).
- ``length_gap``: |log| of the two texts' length ratio.
- ``judge_cosine`` and ``judge_relative``: the cosine and the relative cosine
  under the judge model (models.txt ``judge=``), which reads each record's
  whole text beside the index's model: two encoders trained apart see
  different things, and the decision reads both.
- ``aligned`` and ``aligned_relative`` (check only, with a judge that gives
  token vectors): how well the two texts' tokens align under the judge, the
  harmonic mean of each side's mean best cosine to the other's tokens
  (BERTScore's F), and the same minus the item's mean over its nearest
  candidates, each also apart when the languages differ (``cross_aligned``,
  ``cross_aligned_relative``). A retelling in the other language says each
  thing the other says, word for word in meaning; a record on the same topic
  shares the topic's words only. Chosen by leave-one-day-out
  cross-validation on the earlier half of the dev streams
  (bench/select_same_item.py, the ``a`` variants).
- ``claims_covered`` and ``claims_back`` (only for an item with key points,
  要点, and only where both records' passage vectors are at hand: check,
  similar, explain): the best cosine of any of the item's key points to any
  of the known record's passages, and of any of the known record's key
  points (its whole text when it has none) to any of the item's passages. A
  writer's summary may lead with another aspect than the known record's,
  while one of its key points still says what the record says; a record on
  the same topic matches the topic, not a point. The best, not the mean: an
  update brings several new points beside one known one, and stays the item.
- ``language_relative`` and ``language_judge_relative`` (for an item with key
  points, beside those two): ``relative`` and ``judge_relative`` against the
  item's candidates written in the known record's language only. In a store
  of both languages an item's nearest records are mostly in its own
  language, other papers among them, and they sink a true record in the
  other language below the neighbourhood; among the records of its own
  language it still stands out. In a store of one language the two equal
  ``relative`` and ``judge_relative``.
- ``top`` and ``judge_top``: 1 when no other candidate of the item is closer
  under that encoder. Across languages a repeat's cosine is low on either
  scale, but it is still usually the nearest record; a record on the same
  topic often is not. Read with the judge only (the decision was chosen
  with both encoders; bench/select_same_item.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from kbsearch.text.ordinals import is_ordinal, ordinals_among
from kbsearch.text.plain_names import product_names
from kbsearch.text.textsim import is_coined

INDEX_FEATURES = (
    "cosine",
    "cross_cosine",
    "cross_lingual",
    "relative",
    "lexical",
    "shared_names",
    "shared_numbers",
    "length_gap",
)
JUDGE_FEATURES = ("judge_cosine", "judge_relative", "judge_top")
"""The features only a judge model gives."""
SAME_ITEM_FEATURES = (*INDEX_FEATURES, "top", *JUDGE_FEATURES)
ALIGNED_FEATURES = ("aligned", "aligned_relative", "cross_aligned", "cross_aligned_relative")
"""The features the judge's token vectors give (check reads them; audit does not)."""
JUDGE_CLAIMS_FEATURES = ("language_judge_relative",)
"""The features read for an item with key points that only a judge model gives."""
CLAIMS_FEATURES = ("claims_covered", "claims_back", "language_relative", *JUDGE_CLAIMS_FEATURES)
"""The features read for an item with key points: its points against the known record's
passages, and the neighbourhood of the known record's language."""


def claims_features_of(judged: bool) -> tuple[str, ...]:
    """The key-point features a decision reads (the judge's only with a judge)."""
    return CLAIMS_FEATURES if judged else tuple(f for f in CLAIMS_FEATURES if f not in JUDGE_CLAIMS_FEATURES)


# A cosine this close to the best counts as the best: the same dot product
# reached by two paths may differ in its last bits.
TIE = 1e-6


def same_item_features(judged: bool) -> tuple[str, ...]:
    """The features a same-item decision reads: with a judge, both encoders'
    and each one's nearest candidate (``top``, ``judge_top``)."""
    return SAME_ITEM_FEATURES if judged else INDEX_FEATURES


# A name held by this many records or more weighs the least (log 2): a cap
# that keeps each rarity lookup a bounded query.
NAME_COUNT_CAP = 50

# Capitalised words that name no system: file names, formats and units of
# the trade (README, JSON, GPU, SLO). A shared one says nothing about the item.
_NOT_NAMES = frozenset(
    {
        "readme",
        "json",
        "yaml",
        "api",
        "apis",
        "gpu",
        "gpus",
        "cpu",
        "cpus",
        "tpu",
        "hbm",
        "dram",
        "ssd",
        "nvme",
        "ram",
        "slo",
        "slos",
        "sla",
        "llm",
        "llms",
        "ai",
        "ml",
        "nlp",
        "cv",
        "pr",
        "prs",
        "url",
        "urls",
        "http",
        "https",
        "faq",
        "tldr",
        "todo",
        "cli",
        "ui",
        "ux",
        "sdk",
        "os",
        "id",
        "ids",
        "pdf",
        "html",
        "csv",
        "sql",
        "fp",
        "fp8",
        "fp16",
        "bf16",
        "int8",
        "int4",
        # metrics, not systems
        "ttft",
        "tpot",
        "itl",
        "qps",
        "tps",
        "rps",
        "mfu",
        "sota",
    }
)
_LATIN_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9²³\-+.]*[A-Za-z0-9²³+]")
_WORD_PARTS = re.compile(r"[-.+]")


def latin_names(text: str) -> set[str]:
    """Coined names (TriAttention, When2Think, C²KV) and acronyms (DES, RSVP)
    in a text, lower-cased: written alike in Chinese and English text; and products
    named by two plain words (Quill-Vision, Orbit-Mini: ``plain_names.product_names``). Not a
    phase, stage or other ordinal (IIa, III, Phase 2a, Ph2: ``ordinals``)."""
    names: set[str] = product_names(text)
    for word in _LATIN_WORD.findall(text):
        names.update(_names_in_word(word))
    return names - ordinals_among(names, text)


@lru_cache(maxsize=1 << 16)
def _names_in_word(word: str) -> tuple[str, ...]:
    # Cached: a check reads each candidate's text three times, and its words
    # recur across records; this was a tenth of a warm check's time.
    names = []
    for part in _WORD_PARTS.split(word):
        if len(part) < 2 or not any(ch.isalpha() for ch in part):
            continue
        if (is_coined(part) or part.isupper()) and part.lower() not in _NOT_NAMES and not is_ordinal(part):
            names.append(part.lower())
    if _is_compound(word):
        names.append(word.lower())
    return tuple(names)


# A hyphenated name is one name: MCP-Bench and MCP-Guard are two systems, not two
# mentions of MCP. Its parts are Latin words, one an acronym or coined (MCP, A2A, vLLM,
# GPU), one a plain word (Bench, Router, Agent, Sched). A version, size or number after
# a hyphen (DeepSeek-V3, Llama-3.1-8B, Medusa-3) makes no compound: those are told by
# the versioned-name rules. Nor does a plain word that describes rather than names
# (LLM-Based, AI-Generated, KV-Cache, LLM-as-Judge, Human-AI).
_PLAIN = re.compile(r"[A-Z]?[a-z]{2,}")
_VERSION = re.compile(r"\d[A-Za-z0-9]*|[A-Za-z]\d+")
_DESCRIBING = frozenset(
    {"to", "as", "of", "in", "on", "for", "the", "and", "or", "with", "by", "via", "vs", "non", "multi", "cross"}
    | {"based", "driven", "first", "aware", "free", "like", "only", "level", "wise", "style", "native", "centric"}
    | {"specific", "friendly", "agnostic", "oriented", "intensive", "efficient", "powered", "human", "cache"}
    | {"large", "small", "full", "half", "real", "time", "scale", "text", "bit", "step", "shot", "token"}
    | {"anti", "pre", "post", "self", "semi", "co", "sub", "super"}
)


def _is_compound(word: str) -> bool:
    """Whether ``word`` is a hyphenated name as a whole (MCP-Bench, KV-Router, A2A-Bridge)."""
    parts = word.split("-")
    if len(parts) < 2 or not all(p.isascii() and p.isalnum() and p[0].isalpha() for p in parts):
        return False
    if any(_VERSION.fullmatch(p) for p in parts):
        return False
    plain = [p for p in parts if _PLAIN.fullmatch(p)]
    named = [p for p in parts if len(p) >= 2 and (p.isupper() or is_coined(p))]
    describing = any(p.lower() in _DESCRIBING or (len(p) > 5 and p.endswith("ed")) for p in plain)
    return bool(plain and named) and not describing


# An acronym or coined name then a plain word, apart or run together (MCP Bench, MCPBench).
_APART = re.compile(r"(?<![A-Za-z0-9\-])([A-Z][A-Za-z0-9]*[A-Z0-9]) ?([A-Z][a-z]{2,})(?![A-Za-z0-9\-])")


def other_spellings(text: str, names: set[str]) -> set[str]:
    """The hyphenated names ``text`` writes otherwise: apart or run together (MCP Bench,
    MCPBench as mcp-bench), and each of ``names`` run together (mcp-bench as mcpbench).
    Read only as mentions: a retelling may write the name any of these ways."""
    found = {f"{m.group(1)}-{m.group(2)}" for m in _APART.finditer(text)}
    apart = {word.lower() for word in found if _is_compound(word)}
    return apart | {name.replace("-", "") for name in names if "-" in name}


def whole_names(names: frozenset[str]) -> frozenset[str]:
    """``names`` without the parts of the hyphenated names among them (MCP of MCP-Bench):
    a title naming MCP-Bench names a benchmark, not the protocol it is for."""
    parts = {part for name in names if "-" in name for part in name.split("-")}
    return frozenset(n for n in names if n not in parts)


def name_weight(count: int) -> float:
    """The weight of one shared name held by ``count`` records (itself included)."""
    return math.log(1.0 + NAME_COUNT_CAP / max(1, min(count, NAME_COUNT_CAP)))


@dataclass(frozen=True)
class Side:
    """What the features read of one record: computed once per record."""

    vector: np.ndarray
    judge: np.ndarray | None
    """The judge model's vector of the whole text (None without a judge)."""
    language: str
    tokens: frozenset[str]
    names: frozenset[str]
    numbers: frozenset[str]
    length: int


@dataclass(frozen=True)
class Neighbourhood:
    """How close an item's candidates come, under each encoder: the mean of
    the nearest few (``cosine``, ``judge``) and the very nearest (``best``,
    ``judge_best``; -1 when unknown, so any record counts as the nearest)."""

    cosine: float = 0.0
    judge: float = 0.0
    best: float = -1.0
    judge_best: float = -1.0
    aligned: float = 0.0
    """The mean token alignment of the nearest few (0 without token vectors)."""
    by_language: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Per language of the candidates: (``cosine``, ``judge``) over those candidates alone."""
    alignments: dict[int, tuple[np.ndarray, np.ndarray, float]] = field(default_factory=dict, repr=False, compare=False)
    """The token alignments read for it, by the known side's token vectors: (the item's, the
    known's, the alignment). The pairs' features read them again, each about 0.1 ms."""


def language_features(features: dict[str, float], around: Neighbourhood, language: str) -> dict[str, float]:
    """``language_relative`` (and ``language_judge_relative``, with the judge's cosine)
    of a pair whose ``features`` are computed, against the neighbourhood of the known
    record's ``language`` (of all candidates when ``around`` was read without languages)."""
    cosine, judged = around.by_language.get(language, (around.cosine, around.judge))
    out = {"language_relative": features["cosine"] - cosine}
    if "judge_cosine" in features:
        out["language_judge_relative"] = features["judge_cosine"] - judged
    return out


def token_alignment(a: np.ndarray, b: np.ndarray) -> float:
    """The harmonic mean of each side's mean best cosine to the other's tokens
    (rows: unit token vectors)."""
    if not len(a) or not len(b):
        return 0.0
    cosines = a @ b.T
    forward, backward = float(cosines.max(axis=1).mean()), float(cosines.max(axis=0).mean())
    return 2 * forward * backward / max(forward + backward, 1e-9)


def claims_features(
    item_claims: np.ndarray, item_body: np.ndarray, known_claims: np.ndarray, known_body: np.ndarray
) -> dict[str, float]:
    """``claims_covered`` and ``claims_back`` from unit passage vectors (rows): the
    best cosine of one side's key points to the other side's passages, whole text included."""
    return {
        "claims_covered": float(np.clip((item_claims @ known_body.T).max(), -1.0, 1.0)),
        "claims_back": float(np.clip((known_claims @ item_body.T).max(), -1.0, 1.0)),
    }


def pair_features(
    item: Side,
    known: Side,
    neighbourhood: Neighbourhood,
    name_count: Callable[[str], int],
    aligned: float | None = None,
) -> dict[str, float]:
    """The features of one pair (the judge's when both sides have a judge
    vector, the alignment's when ``aligned`` is given); ``name_count`` says
    how many known records hold a name."""
    cosine = float(np.clip(item.vector @ known.vector, -1.0, 1.0))
    cross = item.language != known.language
    lexical = 0.0
    if not cross and item.tokens and known.tokens:
        lexical = len(item.tokens & known.tokens) / len(item.tokens | known.tokens)
    shared = item.names & known.names
    features = {
        "cosine": cosine,
        "cross_cosine": cosine if cross else 0.0,
        "cross_lingual": 1.0 if cross else 0.0,
        "relative": cosine - neighbourhood.cosine,
        "lexical": lexical,
        "shared_names": sum(name_weight(name_count(n)) for n in sorted(shared)),
        "shared_numbers": float(len(item.numbers & known.numbers)),
        "length_gap": abs(math.log((1 + item.length) / (1 + known.length))),
        "top": 1.0 if cosine >= neighbourhood.best - TIE else 0.0,
    }
    if item.judge is not None and known.judge is not None:
        judged = float(np.clip(item.judge @ known.judge, -1.0, 1.0))
        features.update(
            judge_cosine=judged,
            judge_relative=judged - neighbourhood.judge,
            judge_top=1.0 if judged >= neighbourhood.judge_best - TIE else 0.0,
        )
    if aligned is not None:
        relative = aligned - neighbourhood.aligned
        features.update(
            aligned=aligned,
            aligned_relative=relative,
            cross_aligned=aligned if cross else 0.0,
            cross_aligned_relative=relative if cross else 0.0,
        )
    return features
