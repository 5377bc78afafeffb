"""Typed results of ``check`` and ``audit``, and the thresholds behind them.

The CLI prints these objects as text or JSON and the TUI shows them: there is
one source of truth for what a verdict says.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum

from pydantic import BaseModel, Field

from kbsearch.records import Kind


class Verdict(StrEnum):
    NEW = "NEW"
    """Nothing known describes the same paper, event or benchmark."""
    UPDATE = "UPDATE"
    """The same item is known, but some of the claims are new."""
    DUPLICATE = "DUPLICATE"
    """The same item is known and nothing in it is new."""


class DedupeConfig(BaseModel, extra="forbid"):
    """Thresholds for deciding "same item" and "known claim".

    Scores are cosine similarity (unit vectors) plus, within one language,
    the Jaccard overlap of Chinese character bigrams and English words. The
    defaults were fitted on the dev arXiv digest stream and checked on the
    example corpus; `kbsearch calibrate` refits them on labelled pairs.
    """

    same_item: float = 1.0
    """cosine + lexical overlap of two whole records, same language, at or
    above which they describe the same item."""
    same_item_cross_lingual: float = 0.70
    """cosine of two whole records in different languages (zh vs en) at or
    above which they describe the same item; lexical overlap means little
    across languages."""
    shared_name_cosine: float = 0.55
    """cosine at or above which two records whose titles share a rare name
    (TriAttention, C²KV) describe the same item."""
    rare_name_share: float = 0.01
    """a coined title word (TriAttention, C²KV) identifies an item when at
    most this share of the records' titles carry it ..."""
    rare_name_min: int = 5
    """... or at most this many, whichever is larger."""
    shared_lead_name_cosine: float = 0.60
    """cosine at or above which two records whose first sentences both name
    one rare coined system (CLDTracker, FoldKV) describe the same item: a
    summary opens with its subject, so this works without titles."""
    rare_lead_name_records: int = 3
    """a name in a first sentence identifies an item when at most this many
    known records hold it anywhere in their text (CoT, LoRA, ViT are in many)."""
    claim_known: float = 0.90
    """cosine + lexical overlap, same language, at or above which a claim is
    already known from a passage."""
    claim_known_cross_lingual: float = 0.68
    """cosine, across languages, at or above which a claim is known."""
    claim_known_same_item: float = 0.75
    """like ``claim_known``, for a passage of a record already judged the same
    item: the paraphrase needs less evidence once the subject is settled."""
    claim_known_same_item_cross_lingual: float = 0.55
    """like ``claim_known_cross_lingual``, for a passage of a same-item record."""
    candidates: int = 20
    """records retrieved per item before the rules are applied."""
    lexical_weight: float = 1.0
    """Weight of the lexical overlap added to the cosine within one language.
    USE gains from it; a model that already reads the surface (e5) sets 0."""
    cosine_shift: float = 0.0
    """The thresholds above are on USE-multilingual-v3's cosine scale. Another
    model's cosine c enters the rules as ``cosine_shift + cosine_scale * c``
    (same language); models.txt sets the pair per model."""
    cosine_scale: float = 1.0
    """See ``cosine_shift``."""
    cross_lingual_cosine_shift: float = 0.0
    """Like ``cosine_shift``, for two texts in different languages."""
    cross_lingual_cosine_scale: float = 1.0
    """See ``cross_lingual_cosine_shift``."""
    matches_shown: int = 5
    """matches reported per item."""

    def calibrated(self, cosine: float, cross_lingual: bool) -> float:
        """``cosine`` on the scale the thresholds are written in."""
        if cross_lingual:
            value = self.cross_lingual_cosine_shift + self.cross_lingual_cosine_scale * cosine
        else:
            value = self.cosine_shift + self.cosine_scale * cosine
        return max(-1.0, min(1.0, value))

    def raw_cosine(self, calibrated: float, cross_lingual: bool) -> float:
        """The model's own cosine that maps to ``calibrated`` (to prefilter raw scores)."""
        if cross_lingual:
            return (calibrated - self.cross_lingual_cosine_shift) / self.cross_lingual_cosine_scale
        return (calibrated - self.cosine_shift) / self.cosine_scale


def load_config(path: str | None, model_defaults: dict[str, float] | None = None) -> DedupeConfig:
    """The model's defaults (its models.txt options), overridden by the fields a
    JSON file written by ``kbsearch calibrate --out`` sets."""
    base = DedupeConfig.model_validate(model_defaults or {})
    if path is None:
        return base
    from pathlib import Path

    from pydantic import ValidationError

    from kbsearch.errors import KbError

    try:
        given = DedupeConfig.model_validate_json(Path(path).read_bytes())
    except OSError as err:
        raise KbError(f"cannot read the dedupe config: {err.strerror}", path=path) from err
    except ValidationError as err:
        first = err.errors()[0]
        raise KbError(
            f"bad dedupe config: {'.'.join(map(str, first['loc']))}: {first['msg']}",
            path=path,
            hint="write one with 'kbsearch calibrate PAIRS.tsv --out FILE'",
        ) from err
    return base.model_copy(update={name: getattr(given, name) for name in given.model_fields_set})


class Match(BaseModel):
    """A known record compared with the item under check."""

    id: str
    kind: Kind
    title: str
    instance: str | None
    date: dt.date | None
    score: float
    """Cosine of the two whole records, on the dedupe scale (USE's cosine; other
    models' cosine mapped by ``DedupeConfig.cosine_shift``/``cosine_scale``)."""
    lexical: float
    """Overlap of Chinese bigrams and English words (0 across languages)."""
    same_item: bool
    reasons: list[str] = Field(default_factory=list)
    """Why it is (or is not) the same item: shared id, shared name, score."""
    shared_ids: list[str] = Field(default_factory=list)
    """arXiv ids both records are about."""
    cited_ids: list[str] = Field(default_factory=list)
    """arXiv ids one record is about and the other only cites: not the same item."""


class ClaimStatus(BaseModel):
    text: str
    known: bool
    score: float
    """Best score of the claim against any known passage."""
    best_id: str | None = None
    best_instance: str | None = None
    best_date: dt.date | None = None
    best_text: str | None = None
    new_numbers: list[str] = Field(default_factory=list)
    """Numbers in the claim that the matched records do not carry."""


class FlagKind(StrEnum):
    claimed_new_seen_before = "claimed_new_seen_before"
    """Marked 首次锚入/本次新增/new, but the item was known earlier or from another instance."""
    contradictory_status = "contradictory_status"
    """The briefing's own id table lists one id both as new and as anchored earlier."""


class Flag(BaseModel):
    kind: FlagKind
    message: str
    arxiv_id: str | None = None
    first_seen_id: str | None = None
    first_seen_instance: str | None = None
    first_seen_date: dt.date | None = None
    anchored_on: str | None = None


class ItemResult(BaseModel):
    """The verdict on one incoming item, with its evidence."""

    id: str
    title: str
    kind: Kind
    instance: str | None
    date: dt.date | None
    verdict: Verdict
    reason: str
    """One line: why this verdict."""
    matches: list[Match] = Field(default_factory=list)
    claims: list[ClaimStatus] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)
    first_seen: Match | None = None
    """The earliest known record of the same item."""


class CheckResult(BaseModel):
    input: str
    model: str
    as_of: dt.date | None
    items: list[ItemResult]
    flags: list[Flag] = Field(default_factory=list)
    """Flags about the input as a whole, such as its arXiv id table."""
    accepted: list[str] = Field(default_factory=list)
    """Ids ingested by ``--accept``."""

    @property
    def exit_code(self) -> int:
        """0 when every item is NEW or UPDATE, 1 when any is a DUPLICATE."""
        return 1 if any(i.verdict is Verdict.DUPLICATE for i in self.items) else 0


class ClusterMember(BaseModel):
    id: str
    kind: Kind
    title: str
    instance: str | None
    date: dt.date | None
    anchor: str | None = None


class Cluster(BaseModel):
    size: int
    first_seen: ClusterMember
    repeats: list[ClusterMember]
    shared_ids: list[str] = Field(default_factory=list)
    instances: list[str] = Field(default_factory=list)


class AuditResult(BaseModel):
    model: str
    records: int
    clusters: list[Cluster]
    claimed_new_seen_before: list[Flag]
