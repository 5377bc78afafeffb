"""The facade: what the CLI, the TUI and the server use from below them.

``facade`` (``KnowledgeBase``: one index folder, one model; ingest, search,
check, audit and the read commands), ``opener`` (one model and judge shared
by the TUI's threads), ``calibration`` (``kbsearch calibrate``'s scratch
knowledge bases), ``doctor`` (is the index whole), ``reading`` (``show``, ``list``, ``stats``),
``read_ahead`` (the database into the OS's cache, for a process that stays)
and ``writer_lock`` (one writer at a time, the others waiting and saying so).
"""

from __future__ import annotations

from kbsearch.embed import Encoder, run_side_by_side
from kbsearch.embed.shared import SharedEncoder
from kbsearch.kb.facade import KnowledgeBase, examine
from kbsearch.kb.model_choice import available_models, index_dir, index_model
from kbsearch.kb.opener import Opener
from kbsearch.kb.read_ahead import read_ahead
from kbsearch.kb.writer_lock import LOCK_NAME
from kbsearch.models import ModelSpec
from kbsearch.responses import Listing, Stats
from kbsearch.search import HIT_TEXT_CHARS, SearchHit, SearchMode, SearchResponse
from kbsearch.store import IndexShare, SearchFilter

__all__ = [
    "HIT_TEXT_CHARS",
    "LOCK_NAME",
    "Encoder",
    "IndexShare",
    "KnowledgeBase",
    "Listing",
    "ModelSpec",
    "Opener",
    "SearchFilter",
    "SearchHit",
    "SearchMode",
    "SearchResponse",
    "SharedEncoder",
    "Stats",
    "available_models",
    "examine",
    "index_dir",
    "index_model",
    "read_ahead",
    "run_side_by_side",
]
