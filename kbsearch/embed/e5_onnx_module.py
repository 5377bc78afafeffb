"""multilingual-e5-small's onnxruntime session as a sentence-transformers input module.

Imported only by ``kbsearch.embed.load_encoder``: it subclasses a torch
module at import time. As ``use.py`` does for USE, the module keeps the
model's own runtime (here onnxruntime with int8 weights) and hands
``SentenceTransformer`` the sentence embedding, so every model goes through
the one interface while the onnx backend keeps its speed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from sentence_transformers.base.modules.input_module import InputModule

from kbsearch.embed.e5_onnx import OnnxE5Session

ONE_CALL = 1 << 30
"""The batch size to give ``SentenceTransformer.encode``: the session batches by
token count itself, and with int8 weights a vector depends on its batch, so it
sees every text of an ``encode`` call at once, as it always has."""


class OnnxE5Module(InputModule):
    """Texts (with the prompt) through the onnxruntime session; its output is
    already pooled and normalized."""

    def __init__(self, session: OnnxE5Session) -> None:
        super().__init__()
        self.session = session

    def preprocess(self, inputs: Sequence[Any], prompt: str | None = None, **kwargs: Any) -> dict[str, Any]:
        texts = [str(item) for item in inputs]
        if prompt:
            texts = self._prepend_prompt(texts, prompt)
        return {"texts": texts}

    def forward(self, features: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        vectors = np.asarray(self.session.encode(features["texts"]), dtype=np.float32)
        features["sentence_embedding"] = torch.from_numpy(vectors.reshape(-1, self.session.dim))
        return features

    def get_sentence_embedding_dimension(self) -> int:
        return self.session.dim

    def get_embedding_dimension(self) -> int:
        return self.session.dim

    def save(self, output_path: str, *args: Any, **kwargs: Any) -> None:
        # The graph lives in kbsearch's cache folder; a saved folder only needs to say so.
        self.save_config(output_path)
