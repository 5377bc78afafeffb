"""A cold check starts loading its judge before the rest of kbsearch is imported.

A cold check spends about half a second importing the store, faiss and the
dedupe rules (Python, on one core), then loads USE and waits for its e5 judge,
whose load (sentencepiece reading 250k pieces, onnxruntime building two
sessions) runs outside the GIL. Started first, on a thread, the judge's load
overlaps those imports on the other core. It fills the per-process caches that
``load_judge`` and ``load_token_encoder`` read, so the check finds the judge
loaded, or waits on their locks for the rest; it never loads a model twice.

Only the CLI's local check calls it: a server keeps its models loaded, and a
check a server answers loads none.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from kbsearch.runtime.overlap import import_first

if TYPE_CHECKING:
    from kbsearch.models import ModelSpec


def start_loading_judge(model: str | None) -> threading.Thread | None:
    """The thread loading the judge that ``model``'s line names (None: the
    default model), with its token vectors; None when it names no judge or
    the registry cannot be read (the check then says why)."""
    try:
        from kbsearch.models import resolve_judge, resolve_model

        spec = resolve_model(model)
        judge = resolve_judge(spec)
    except Exception:  # the check reads the registry again and reports the error properly
        return None
    if judge is None or not judge.on_onnx:  # a hub judge imports torch: measured for the built-in one only
        return None
    try:
        _import_here(judge)
    except ImportError:  # the check's own load names the missing package
        return None
    thread = threading.Thread(target=_load, args=(judge, spec.name), name="kbsearch-preload", daemon=True)
    thread.start()
    return thread


def _import_here(judge: ModelSpec) -> None:
    import_first(judge.runtime_modules)  # what the thread would import, imported on this one


def _load(judge: ModelSpec, owner: str) -> None:
    from kbsearch.embed import load_judge, load_token_encoder

    try:
        # The token encoder first: loading the graph, it builds the token graph's session
        # beside the tokenizer; the judge then finds the same graph loaded.
        load_token_encoder(judge)
        load_judge(judge, owner)
    except Exception:  # the check loads again, in its own thread, and reports what failed there
        return
