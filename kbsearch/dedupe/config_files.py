"""Which dedupe config a model decides with, read from its file and refused with the fix.

``--config FILE``, else the file or the other model's config its models.txt line names
(``dedupe=``), else the one shipped for the model and its judge (``kbsearch/scorers``). A missing
or malformed file, one fitted for another model, judge or cosine scale, and one whose needed
decision was never fitted are refused; ``starting_config`` is what ``calibrate`` starts from."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from pydantic import ValidationError

from kbsearch.dedupe.config import DEFAULTS_FROM, FIT_HINT, FITTED_BY, PLACEHOLDER, DedupeConfig, unfitted
from kbsearch.dedupe.scorer import Scorer
from kbsearch.errors import KbError
from kbsearch.models import ModelSpec, line_of, models_file, resolve_model


def shipped_config_path(model: str, judge: str | None = None) -> Path:
    """Where the package keeps a model's fitted config: ``MODEL.json`` when it
    decides alone, ``MODEL+JUDGE.json`` with a judge."""
    name = model if judge is None else f"{model}+{judge}"
    return Path(str(resources.files("kbsearch") / "scorers" / f"{name}.json"))


def load_config(
    path: str | Path | None, model: str, *, same_model: bool = True, judge: str | None = None, raw: bytes = b""
) -> DedupeConfig:
    """The config in ``path``, else the one shipped for ``model`` (and ``judge``).
    With ``same_model`` it must have been fitted for ``model``; models.txt may
    point a model at another's config (the same weights run another way). A
    config fitted with a judge needs that judge; one fitted without reads none.
    ``raw``: the file's content, sent to a server (which never opens ``path``)."""
    file = Path(path) if path is not None else shipped_config_path(model, judge)
    try:
        raw = raw or file.read_bytes()
    except OSError as err:
        if path is None and isinstance(err, FileNotFoundError):
            raise KbError(
                f"no dedupe config for model {model!r}"
                + (f" with judge {judge!r}" if judge else "")
                + ": kbsearch ships none for it",
                hint="fit one with 'kbsearch calibrate STREAM.jsonl PAIRS.tsv --until half --out FILE', then add "
                f"dedupe=FILE to {line_of(model)}, or pass --config FILE; see docs/dedupe.md",
            ) from err
        raise KbError(f"cannot read the dedupe config: {err.strerror}", path=str(file), hint=FIT_HINT) from err
    try:
        config = DedupeConfig.model_validate_json(raw)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(map(str, first["loc"])) or "file"
        raise KbError(f"bad dedupe config: {where}: {first['msg']}", path=str(file), hint=FIT_HINT) from err
    if same_model and config.model != model:
        raise KbError(
            f"the dedupe config was fitted for model {config.model!r}, not {model!r}",
            path=str(file),
            hint=f"use the config fitted for {model!r}, or {FIT_HINT}",
        )
    if config.judge is not None and config.judge != judge:
        raise KbError(
            f"the dedupe config was fitted with judge {config.judge!r}, "
            + (f"and model {model!r} names judge {judge!r}" if judge else f"and model {model!r} names none"),
            path=str(file),
            hint=f"set judge={config.judge} on {line_of(model)}, or use a config fitted for it",
        )
    return config


def config_for(spec: ModelSpec, path: str | None = None, needs: tuple[str, ...] = (), raw: bytes = b"") -> DedupeConfig:
    """The config in ``path`` (``--config``), else the one models.txt names for
    the model (a file, or another model's shipped config), else its own; refused
    when a decision in ``needs`` was never fitted (it would decide every pair alike)."""
    own = spec.dedupe
    if spec.search_only and path is None:
        raise KbError(
            f"model {spec.name!r} is search-only (dedupe=none): it has no dedupe config for check, audit, "
            "similar or explain",
            path=str(models_file()),
            line=spec.line or None,
            hint="fit one with 'kbsearch calibrate STREAM.jsonl PAIRS.tsv --until half --out FILE' and set "
            "dedupe=FILE on its line, or use an index of another model (--model NAME)",
        )
    if path is not None or own is None:
        file: str | Path | None = path
        config = load_config(path, spec.name, judge=spec.judge, raw=raw)
    else:
        file = own if own.endswith(".json") else shipped_config_path(own, spec.judge)
        config = load_config(file, spec.name, same_model=False, judge=spec.judge)
        if not own.endswith(".json"):  # a file is the line's own choice, whoever it was fitted for
            _refuse_other_scale(own, spec, file)
    missing = [name for name in unfitted(config) if name in needs]
    if missing:
        where = file if file is not None else shipped_config_path(spec.name, spec.judge)
        fits, example = FITTED_BY[missing[0]]
        raise KbError(
            f"the dedupe config's {missing[0]} decision was never fitted (calibrate had no {fits}): "
            "it would decide every pair alike",
            path=str(where),
            hint=f"fit it with 'kbsearch calibrate {example} --config {where} --out {where}'; "
            "docs/dedupe.md has the format",
        )
    return config


def _refuse_other_scale(fitted_for: str, spec: ModelSpec, file: str | Path) -> None:
    """A models.txt line may borrow another model's config (``dedupe=``) when both run
    the same weights; a model whose vectors have another dimension cannot be one."""
    if fitted_for == spec.name:
        return
    try:
        other = resolve_model(fitted_for)
    except KbError:
        return
    if other.dim is not None and spec.dim is not None and other.dim != spec.dim:
        raise KbError(
            f"model {spec.name!r} (dim {spec.dim}) borrows the dedupe config fitted for {fitted_for!r} "
            f"(dim {other.dim}): other weights, whose cosines are on another scale",
            path=str(file),
            hint=f"fit its own with 'kbsearch calibrate STREAM.jsonl PAIRS.tsv --out FILE', then set dedupe=FILE "
            f"on {line_of(spec.name)}",
        )


def starting_config(path: str | None, spec: ModelSpec) -> DedupeConfig:
    """What ``calibrate`` starts from: the given config, else the model's own,
    else (a model never fitted) the settings of the default model's shipped config
    with placeholders for the decisions, which the fit replaces (``unfitted``
    names those it did not)."""
    try:
        return config_for(spec, path)
    except KbError:
        if path is not None:
            raise
    blank = Scorer(
        features=["cosine"], weights=[0.0], means=[0.0], scales=[1.0], bias=0.0, threshold=0.5, fitted_on=PLACEHOLDER
    )
    shipped = load_config(None, DEFAULTS_FROM[0], judge=DEFAULTS_FROM[1] if spec.judge else None)
    settings = {name: value for name, value in shipped if not isinstance(value, Scorer)}
    return DedupeConfig.model_validate(
        {**settings, "model": spec.name, "judge": spec.judge, "same_item": blank, "claim_known": blank}
    )
