"""``Opener``: ``KnowledgeBase.open(index, model)`` for several threads (the
TUI's gateways), loading the model and its judge once between them."""

from __future__ import annotations

import os
import threading
from typing import cast

from kbsearch.embed import Encoder
from kbsearch.embed.shared import SharedEncoder
from kbsearch.kb.facade import KnowledgeBase
from kbsearch.kb.model_choice import index_dir, spec_for_index
from kbsearch.models import resolve_judge


class Opener:
    """Each call opens the index with the shared encoders.

    The model is resolved inside the call, on the caller's thread, so that an
    unknown model becomes an error like any other there.
    """

    def __init__(self, index: str | os.PathLike[str] | None, model: str | None) -> None:
        self.index = index
        self.model = model
        self._lock = threading.Lock()
        self._encoders: tuple[SharedEncoder, SharedEncoder | None] | None = None

    def __call__(self) -> KnowledgeBase:
        with self._lock:
            if self._encoders is None:
                spec = spec_for_index(index_dir(self.index), self.model)  # no --model: the index's own
                judge = resolve_judge(spec)
                shared_judge = SharedEncoder.judge_of(judge, spec.name) if judge is not None else None
                self._encoders = (SharedEncoder(spec), shared_judge)
        encoder, judge_encoder = self._encoders
        # cast: the Protocol declares model_id and dim as plain attributes; here
        # they are read-only properties, since reading them loads the model
        return KnowledgeBase(
            index_dir(self.index),
            encoder.spec,
            encoder=cast(Encoder, encoder),
            judge=cast(Encoder, judge_encoder) if judge_encoder is not None else None,
        )
