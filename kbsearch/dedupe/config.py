"""The thresholds behind ``check`` and ``audit``, and how a config file overrides them."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ValidationError

from kbsearch.errors import KbError


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


def load_config(
    path: str | None,
    model_defaults: dict[str, float] | None = None,
    *,
    model: str | None = None,
    overrides: dict[str, float] | None = None,
) -> DedupeConfig:
    """The model's defaults (its models.txt options), overridden by the fields a
    JSON file written by ``kbsearch calibrate --out`` sets, or by ``overrides``
    (the same fields, as a server's caller sends them)."""
    base = _model_defaults(model_defaults or {}, model)
    if overrides:
        try:
            return DedupeConfig.model_validate({**base.model_dump(), **overrides})
        except ValidationError as err:
            first = err.errors()[0]
            raise KbError(f"bad dedupe config: {'.'.join(map(str, first['loc']))}: {first['msg']}") from err
    if path is None:
        return base
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


def _model_defaults(options: dict[str, float], model: str | None) -> DedupeConfig:
    """The thresholds a models.txt line sets: the registry passes on every
    ``NAME=number`` it does not know itself, and only here are the names checked."""
    try:
        return DedupeConfig.model_validate(options)
    except ValidationError as err:
        first = err.errors()[0]
        name = ".".join(map(str, first["loc"]))
        raise KbError(
            f"models.txt: model {model or '?'!r} has a bad dedupe option {name}: {first['msg']}",
            hint=f"fix its line in models.txt; the dedupe options are {', '.join(DedupeConfig.model_fields)}",
        ) from err
