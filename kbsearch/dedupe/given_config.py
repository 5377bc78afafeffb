"""The dedupe config a check or an explain decides with, wherever it was given: ``--config
FILE``, models.txt, or the ``config`` field of a server's caller, which holds either a whole
config (a ``calibrate --out`` file's fields, as ``check --config FILE`` sends it through a
server) or numbers that override the chosen config's (``candidates``, ``claim_hits`` …).

A whole config sent is validated as ``--config FILE`` reads it (fitted for this model and its
judge, its decisions fitted), and its errors name the file the caller read it from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kbsearch.dedupe.config import DedupeConfig, with_overrides
from kbsearch.dedupe.config_files import config_for
from kbsearch.models import ModelSpec

SENT = "config"
"""What errors name a whole config sent with no file name: the request's field."""


def chosen_config(
    spec: ModelSpec,
    path: str | None = None,
    needs: tuple[str, ...] = (),
    fields: dict[str, Any] | None = None,
    name: str | None = None,
) -> DedupeConfig:
    """The config in ``path`` (``--config``), else the one models.txt names, else the model's
    own; ``fields``: a server caller's, a whole config (it names its ``model``; ``name`` is
    its file, never opened) or numbers over the chosen config's. A check's result names
    a config given so in a note (``decided_by``)."""
    if fields and "model" in fields:
        path = name or SENT
        config = config_for(spec, path, needs, raw=json.dumps(fields, ensure_ascii=False).encode("utf-8"))
    else:
        config = with_overrides(config_for(spec, path, needs), fields)
    config._notes = decided_by(spec, path)
    return config


def decided_by(spec: ModelSpec, given: str | None) -> list[str]:
    """A check's note naming the config that decided it when one was given (``--config``, or a
    whole config sent), else the file models.txt names (``dedupe=FILE``); none for the config
    kbsearch ships for the model (or borrows, ``dedupe=MODEL``)."""
    if given is not None:
        return [f"decided with the dedupe config {given}, not the one model {spec.name!r} reads by default"]
    if spec.dedupe is not None and spec.dedupe.endswith(".json"):  # by its name, as 'kbsearch models' shows it
        name = Path(spec.dedupe).name
        return [
            f"decided with the dedupe config {name}, which models.txt names for model {spec.name!r} (dedupe={name})"
        ]
    return []
