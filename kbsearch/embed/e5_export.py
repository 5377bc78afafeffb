"""Export the rebuilt multilingual-e5-small to ONNX with ``torch.onnx``.

Imported only while building the ONNX cache folder: it imports torch at once.
Uses the TorchScript exporter (``dynamo=False``), which needs neither optimum
nor onnxscript.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch


class PooledBert(torch.nn.Module):
    """BertModel, then the mean over real tokens, then unit length: one sentence vector."""

    def __init__(self, bert: Any) -> None:
        super().__init__()
        self.bert = bert

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
        mean = (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)
        return torch.nn.functional.normalize(mean, dim=-1)


def export_onnx(source: Path, target: Path, example: tuple[np.ndarray, np.ndarray]) -> None:
    """Write ``source``'s BertModel, pooled, to ``target`` with dynamic batch and length."""
    import warnings

    from transformers import AutoModel

    bert = AutoModel.from_pretrained(str(source), local_files_only=True, attn_implementation="eager")
    graph = PooledBert(bert).eval()
    inputs = tuple(torch.from_numpy(a) for a in example)
    axes = {
        "input_ids": {0: "batch", 1: "tokens"},
        "attention_mask": {0: "batch", 1: "tokens"},
        "sentence_embedding": {0: "batch"},
    }
    with torch.no_grad(), warnings.catch_warnings():
        # The tracer warns about shape checks that hold for every input we feed.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            graph,
            inputs,
            str(target),
            dynamo=False,
            opset_version=17,
            input_names=["input_ids", "attention_mask"],
            output_names=["sentence_embedding"],
            dynamic_axes=axes,
        )
