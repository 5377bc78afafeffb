"""Which model a command on an existing index uses, and whether a folder model's
weights are still the ones that embedded the index's vectors.

With neither ``--model`` nor $KBSEARCH_MODEL, a command on an index uses the
model the index was built with when models.txt names it, not models.txt's
first line: the index remembers its model, so the user need not repeat it. An
explicit model other than the index's is still refused (``binding``).

A model read from a local folder is known by its NAME in the index, and
the folder can be rewritten in place (new weights, another tokenizer) under
the same NAME: the stored vectors would then sit on another scale than the
queries', and nothing would tell. So the index keeps the folder's
fingerprint (``ModelSpec.fingerprint``) beside the vectors, one per model
name, and a command whose folder no longer matches is refused, naming the
fix. Models of pip packages and hub ids keep their name as their identity.
"""

from __future__ import annotations

import os
from pathlib import Path

from kbsearch.errors import KbError
from kbsearch.kb.reading import stored_model
from kbsearch.models import ModelSpec, load_models, resolve_model
from kbsearch.settings import settings
from kbsearch.store import Store
from kbsearch.store.sql import read_meta, write_meta
from kbsearch.store.writer import transaction

DEFAULT_INDEX = Path("index")
available_models = load_models  # every model models.txt names, the default first


def index_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """--index, else $KBSEARCH_INDEX, else ./index."""
    return Path(explicit) if explicit else settings().index or DEFAULT_INDEX


def index_model(index: str | os.PathLike[str] | None = None) -> str | None:
    """The model the index was built with; None when there is no index (or it is empty)."""
    return stored_model(index_dir(index))


def spec_for_index(root: Path, name: str | None) -> ModelSpec:
    """``name``, else $KBSEARCH_MODEL, else the index's own model when models.txt
    names it, else models.txt's default (which an index of another model refuses,
    naming the fix)."""
    if name or settings().model:
        return resolve_model(name)
    specs = load_models()
    try:
        built = stored_model(root)
    except KbError:  # unfinished (a first ingest running now) or unusable: the open under the lock says so
        built = None
    return next((spec for spec in specs if spec.name == built), specs[0])


def _key(model: str) -> str:
    return f"fingerprint:{model}"


def changed_weights(store: Store, spec: ModelSpec | None, owner: ModelSpec | None = None) -> KbError | None:
    """The error a command gets when ``spec``'s folder changed since the index
    stored its vectors; None when it did not, or the index keeps no fingerprint.
    ``owner``: the model whose judge ``spec`` is (its reindex is the index's model's)."""
    if spec is None:
        return None
    kept = read_meta(store.db, _key(spec.name))
    if kept is None:
        return None
    now = spec.fingerprint()
    if now is None or now == kept:
        return None
    model = owner.name if owner is not None else spec.name
    role = f"judge {spec.name!r} of {model!r}" if owner is not None else repr(spec.name)
    return KbError(
        f"the model folder {spec.folder} of {role} changed since the index at {store.root} "
        f"embedded its texts with it: the stored {spec.name!r} vectors are of the old weights",
        hint=f"run 'kbsearch reindex --model {model} --force' to embed every text again with the folder "
        f"as it is now (only the models whose folder changed), or give the new weights a new NAME in "
        f"models.txt and run 'kbsearch reindex --model NAME'",
    )


def require_same_weights(store: Store, spec: ModelSpec, judge: ModelSpec | None = None) -> None:
    for problem in (changed_weights(store, spec), changed_weights(store, judge, spec)):
        if problem is not None:
            raise problem


def embed_again(store: Store, spec: ModelSpec, judge: ModelSpec | None, *, force: bool) -> tuple[list[str], list[str]]:
    """What ``reindex --force`` embeds every text again with, and whose vectors it keeps:
    the models whose folder changed since the index stored their vectors (their
    fingerprints, one per model name, tell them apart); when none is known to have
    changed (no folder, or no fingerprint kept), every model, as nothing tells them
    apart. Without ``force``, nothing, and a changed folder is refused."""
    if not force:
        require_same_weights(store, spec, judge)
        return [], []
    models = [m for m in (spec, judge) if m is not None]
    changed = [m.name for m in models if changed_weights(store, m) is not None]
    if not changed:
        return [m.name for m in models], []
    return changed, [m.name for m in models if m.name not in changed]


def record_weights(store: Store, *specs: ModelSpec | None) -> None:
    """Keep the fingerprint of each folder model whose vectors the index now holds
    (after an ingest or a reindex, under the writer lock)."""
    wanted = {}
    for spec in specs:
        now = spec.fingerprint() if spec is not None else None
        if spec is not None and now is not None and read_meta(store.db, _key(spec.name)) != now:
            wanted[_key(spec.name)] = now
    if wanted and store.count():
        with transaction(store) as db:
            for key, value in wanted.items():
                write_meta(db, key, value)
