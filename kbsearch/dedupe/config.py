"""Everything the dedupe gate decides with, for one model, in one validated file.

Each model has its own cosine scale, so each ships its own config:
``kbsearch/scorers/<model name>.json`` for a model that decides alone, and
``kbsearch/scorers/<model name>+<judge name>.json`` for a model with a judge
(or the file a models.txt line names with ``dedupe=FILE``, or ``--config
FILE``). ``kbsearch calibrate`` writes it; ``config_files`` finds and reads it. A missing or
malformed file is an error that names the file and the fix; there is no silent fallback to another
model's numbers.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from kbsearch.dedupe.features import (
    ALIGNED_FEATURES,
    CLAIMS_FEATURES,
    JUDGE_CLAIMS_FEATURES,
    JUDGE_FEATURES,
    SAME_ITEM_FEATURES,
)
from kbsearch.dedupe.scorer import Scorer
from kbsearch.errors import KbError

CLAIM_FEATURES = ("cosine", "cross_cosine", "cross_lingual", "lexical")
SAID_FEATURES = (
    *CLAIM_FEATURES,
    "judge_cosine",
    "cross_judge_cosine",
    "coverage",
    "cross_coverage",
    "names_missing",
    "numbers_missing",
    "numbers_shared",
    "same_item",
    "record_coverage",
    "english_pair",
)
"""What ``claim_said`` may read (see ``kbsearch.dedupe.claims``)."""
TOKEN_FEATURES = ("coverage", "cross_coverage", "record_coverage")
FIT_HINT = "fit one with 'kbsearch calibrate STREAM.jsonl PAIRS.tsv --until half --out FILE' (see docs/dedupe.md)"
PLACEHOLDER = "nothing yet: a placeholder until calibrate fits it"
"""The ``fitted_on`` of a decision a from-scratch ``calibrate`` did not fit."""
FITTED_BY = {"same_item": ("labelled streams", "STREAM.jsonl"), "claim_known": ("labelled pairs", "PAIRS.tsv")}
"""The required decisions, and the ``calibrate`` input that fits each."""
CHECK_NEEDS = ("same_item", "claim_known")
"""What ``check`` decides with: items and their claims. ``audit``, ``explain``
and ``similar`` read ``same_item`` only."""
DEFAULTS_FROM = ("use-multilingual-v3", "multilingual-e5-small")
"""The shipped config whose settings a model fitted from scratch starts from:
the default model's (with its judge, when the model has a judge)."""


class DedupeConfig(BaseModel):
    """The gate's decisions and counts. Each field says where its value came from."""

    model_config = ConfigDict(extra="forbid")
    _notes: list[str] = PrivateAttr(default_factory=list)  # a check's, on where it came from (given_config)

    model: str
    """The model whose vectors the scorers read: a config fitted for one model
    is refused for another (their cosines are on different scales)."""
    judge: str | None = None
    """The judge model whose whole-text vectors the ``judge_*`` features read
    (models.txt ``judge=``); None: the model decides alone."""
    same_item: Scorer
    """Is a known record the same item? Fitted on the earlier half of the days of
    the labelled dev streams (see its ``fitted_on``); used wherever no exact
    evidence (ids, identical text, card titles) settles it."""
    aligned_same_item: Scorer | None = None
    """The same-item decision where the judge's token vectors are read as well
    (``check``; ``audit`` and ``explain`` read whole texts and use
    ``same_item``). Fitted on the same days as ``same_item`` with the
    alignment features added (see its ``fitted_on``). None: no alignment."""
    claims_same_item: Scorer | None = None
    """The same-item decision for an item with key points (要点), whatever its
    length: ``same_item``'s features plus how well each side's key points meet
    the other side's passages (``claims_covered``, ``claims_back``). Fitted on
    the claim-level dev pairs (see its ``fitted_on``). None: such an item is
    decided as any other."""
    aligned_claims_same_item: Scorer | None = None
    """``claims_same_item`` with the alignment features too, for the pairs
    whose token vectors check reads (``aligned_same_item``'s pairs)."""
    aligned_max_tokens: int = Field(default=123, ge=1)
    """The longest text, in the judge's tokens, whose pairs ``aligned_same_item``
    decides: the longest text of the dev streams it was fitted on (123 tokens;
    median 40). Past it the decision would extrapolate: a briefing increment of
    several claims (180-470 tokens in the seeds) aligns with a note on the same
    topic about as well as with its own repeat, and is decided by ``same_item``."""
    aligned_candidates: int | None = Field(default=None, ge=1)
    """How many of an item's candidates, nearest by the judge's cosine, get token
    vectors and so the aligned decision; the rest are decided by ``same_item``.
    Encoding every candidate's tokens (20 to 40) was most of a check's cost;
    the shipped 10 (the neighbourhood) moved seen-before F1 by at most 0.001
    on the three dev streams (docs/performance.md). None: all."""
    claim_known: Scorer
    """Does a known passage say what a claim says? Fitted on labelled sentence
    pairs (see its ``fitted_on``)."""
    judge_claim_known: Scorer | None = None
    """The claim decision on the judge's vectors, fitted on the same sentence
    pairs: with a judge, a claim is also known when the judge finds a passage
    of a same-item record saying it. USE's sentence cosine across languages
    is low for a faithful retelling; e5's is not. None: the index's model
    alone."""
    claim_said: Scorer | None = None
    """Does a passage say what a claim says, read from what carries across languages and
    writers: the claim's cosine to it under both encoders, how much of the claim's
    tokens it covers (the judge's token vectors), the claim's names and numbers it
    lacks, and whether its record is the same item. Replaces ``claim_known`` and
    ``judge_claim_known`` when set; fitted on the claim protocol's replays (see its
    ``fitted_on``)."""
    candidates: int = Field(default=20, ge=1)
    """Records retrieved per item, by whole-text vector and by title vector.
    The replay of the dev streams counts how often the true earlier record is
    among them (candidate recall, docs/dedupe.md); more candidates beyond 20
    found almost no more."""
    rare_name_records: int = Field(default=5, ge=0)
    """A coined name of the item held by at most this many known records brings
    those records in as candidates too: a repeat in another language can share
    little but its names (DES, RSVP). The replay counts what it adds to the
    candidate recall across languages (docs/dedupe.md)."""
    claim_hits: int = Field(default=5, ge=1)
    """Passages retrieved per claim from any record (a same-item record's
    passages are all compared as well)."""
    key_point_candidates: int = Field(default=5, ge=0)
    """Nearest records of each key point that join an item's candidates (0: none):
    a repeat reworded or translated around one of its key points is found by that
    point where its whole text misses it (docs/dedupe.md, "Key points as item evidence")."""
    neighbourhood: int = Field(default=10, ge=1)
    """How many of an item's nearest candidates make its neighbourhood, whose
    mean cosine the ``relative`` feature subtracts."""
    title_min_words: int = Field(default=3, ge=1)
    """Paper-card titles shorter than this are headings ("Introduction"), not
    names, and settle nothing."""
    different_title_overlap: float = Field(default=0.5, ge=0.0, le=1.0)
    """Two paper cards whose titles in one language share less than this share
    of their words name two papers ("Sparse Draft Trees…" revised to
    "Adaptive Sparse Draft Trees…" keeps most words). From the example
    corpus's revised titles; the dev streams copy titles verbatim."""
    audit_neighbours: int = Field(default=10, ge=1)
    """Nearest records each record is compared with in ``audit``."""
    audit_other_language: int = Field(default=0, ge=0)
    """Nearest records written in the other language each record is also
    compared with in ``audit``, in the judge's space when there is one
    (``dedupe/other_language.py``); 0: none."""
    matches_shown: int = Field(default=5, ge=1)
    """Matches reported per item (a display choice)."""

    @field_validator("same_item")
    @classmethod
    def _same_item_features(cls, scorer: Scorer) -> Scorer:
        unknown = sorted(set(scorer.features) - set(SAME_ITEM_FEATURES))
        if unknown:
            raise ValueError(f"unknown same-item features {unknown}; known: {', '.join(SAME_ITEM_FEATURES)}")
        return scorer

    @field_validator("aligned_same_item")
    @classmethod
    def _aligned_features(cls, scorer: Scorer | None) -> Scorer | None:
        if scorer is None:
            return None
        known = (*SAME_ITEM_FEATURES, *ALIGNED_FEATURES)
        unknown = sorted(set(scorer.features) - set(known))
        if unknown:
            raise ValueError(f"unknown aligned same-item features {unknown}; known: {', '.join(known)}")
        return scorer

    @field_validator("claims_same_item", "aligned_claims_same_item")
    @classmethod
    def _claims_features(cls, scorer: Scorer | None) -> Scorer | None:
        known = (*SAME_ITEM_FEATURES, *ALIGNED_FEATURES, *CLAIMS_FEATURES)
        unknown = sorted(set(scorer.features) - set(known)) if scorer is not None else []
        if unknown:
            raise ValueError(f"unknown claims same-item features {unknown}; known: {', '.join(known)}")
        return scorer

    @field_validator("claim_said")
    @classmethod
    def _said_features(cls, scorer: Scorer | None) -> Scorer | None:
        unknown = sorted(set(scorer.features) - set(SAID_FEATURES)) if scorer is not None else []
        if unknown:
            raise ValueError(f"unknown claim_said features {unknown}; known: {', '.join(SAID_FEATURES)}")
        return scorer

    def reads_tokens(self) -> bool:
        """Whether a check reads the judge's token vectors (the aligned forms)."""
        return self.aligned_same_item is not None or self.said_reads_tokens()

    def said_reads_tokens(self) -> bool:
        """Whether ``claim_said`` reads the claims' token vectors (their coverage)."""
        return self.claim_said is not None and bool(set(self.claim_said.features) & set(TOKEN_FEATURES))

    def same_item_for(self, features: dict[str, float]) -> Scorer:
        """The same-item decision for a pair: the claims one when the item has key
        points, else the aligned one when the pair has the alignment features,
        each when the config has that decision."""
        claims, aligned = "claims_covered" in features, "aligned" in features
        if claims and aligned and self.aligned_claims_same_item is not None:
            return self.aligned_claims_same_item
        if claims and self.claims_same_item is not None:
            return self.claims_same_item
        if aligned and self.aligned_same_item is not None:
            return self.aligned_same_item
        return self.same_item

    @model_validator(mode="after")
    def _judge_features_need_a_judge(self) -> DedupeConfig:
        forms = [f for f in (self.same_item, self.claims_same_item, self.aligned_claims_same_item) if f is not None]
        used = sorted({f for form in forms for f in form.features} & {*JUDGE_FEATURES, *JUDGE_CLAIMS_FEATURES})
        if used and self.judge is None:
            raise ValueError(f"same-item features {used} read a judge model, and the config names none ('judge')")
        if self.aligned_same_item is not None and self.judge is None:
            raise ValueError("aligned_same_item reads the judge's token vectors, and the config names no judge")
        if self.judge_claim_known is not None and self.judge is None:
            raise ValueError("judge_claim_known reads a judge model, and the config names none ('judge')")
        if (
            self.claim_said is not None
            and self.judge is None
            and set(self.claim_said.features)
            - set(CLAIM_FEATURES)
            - {"names_missing", "numbers_missing", "numbers_shared", "same_item"}
        ):
            raise ValueError("claim_said reads the judge model's vectors, and the config names none ('judge')")
        if self.judge_claim_known is not None and self.judge_claim_known.threshold != self.claim_known.threshold:
            raise ValueError("judge_claim_known and claim_known need one threshold: a claim shows its score against it")
        return self

    @field_validator("claim_known", "judge_claim_known")
    @classmethod
    def _claim_features(cls, scorer: Scorer | None) -> Scorer | None:
        if scorer is None:
            return None
        unknown = sorted(set(scorer.features) - set(CLAIM_FEATURES))
        if unknown:
            raise ValueError(f"unknown claim features {unknown}; known: {', '.join(CLAIM_FEATURES)}")
        return scorer


def unfitted(config: DedupeConfig) -> list[str]:
    """The required decisions ``calibrate`` never fitted (placeholders that decide
    the same for every pair: a zero-weight scorer)."""
    return [
        name
        for name in FITTED_BY
        if (s := getattr(config, name)).fitted_on.startswith("nothing yet") or not any(s.weights)
    ]


def for_judge(config: DedupeConfig, judge: str | None) -> DedupeConfig:
    """``config`` set to be fitted with ``judge`` (or none), validated."""
    try:
        return DedupeConfig.model_validate({**config.model_dump(), "judge": judge})
    except ValidationError as err:
        raise KbError(f"bad dedupe config: {err.errors()[0]['msg']}", hint=FIT_HINT) from err


def with_overrides(config: DedupeConfig, overrides: dict[str, float] | None) -> DedupeConfig:
    """``config`` with top-level numbers replaced (``candidates``, ``claim_hits`` …),
    validated: the scorers themselves come only from a file."""
    if not overrides:
        return config
    try:
        return DedupeConfig.model_validate({**config.model_dump(), **overrides})
    except ValidationError as err:
        first = err.errors()[0]
        raise KbError(f"bad dedupe config: {'.'.join(map(str, first['loc']))}: {first['msg']}") from err
