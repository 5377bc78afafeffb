"""``kbsearch calibrate`` at the facade: fit a model's learned dedupe decisions
by replaying labelled streams through scratch knowledge bases."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from kbsearch.embed import load_encoder, load_judge, load_token_encoder
from kbsearch.kb.facade import KnowledgeBase
from kbsearch.models import resolve_judge, resolve_model

if TYPE_CHECKING:
    from kbsearch.dedupe.calibrate_results import Calibration


def calibrate(inputs: list[Path], model: str | None = None, *, out: str | None = None, **fit: Any) -> Calibration:
    """Fit the model's learned dedupe decisions (``fit``: tests, until, config); ``out`` saves the config.

    The replays run with the model's judge when its line names one, so the
    same-item decision is fitted on both encoders' features."""
    from kbsearch.dedupe.calibrate import calibrate as fit_both
    from kbsearch.dedupe.calibrate import read_inputs
    from kbsearch.dedupe.config import for_judge
    from kbsearch.dedupe.config_files import starting_config
    from kbsearch.vector_index import write_atomic

    read_inputs(inputs, fit.get("tests") or [])  # a malformed file is refused before the models load
    spec = resolve_model(model)
    encoder = load_encoder(spec)
    judge_spec = resolve_judge(spec)
    judge = load_judge(judge_spec, spec.name) if judge_spec is not None else None
    # The replays record the judge's token alignment, so both decisions are fitted.
    tokens = load_token_encoder(judge_spec) if judge_spec is not None else None
    # Fitted for the model's own judge (or none), whatever config it starts from.
    config = for_judge(starting_config(fit.pop("config", None), spec), spec.judge)
    opener = lambda root: KnowledgeBase(root, spec, create=True, encoder=encoder, judge=judge, tokens=tokens)  # noqa: E731
    result = fit_both(inputs, encoder=encoder, open_kb=opener, config=config, **fit)
    if out:
        write_atomic(Path(out), result.config.model_dump_json(indent=2).encode())
        result.written = out
    return result
