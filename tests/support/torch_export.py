"""The int8 graph kbsearch shipped before it wrote its own: torch.onnx's export of
the rebuilt BertModel (mean pooling and normalization inside), quantized by
onnxruntime. The users' stored judge vectors came from it, so the slow tests
hold today's graph to it. Imports torch: slow tests only.
"""

from __future__ import annotations

import logging
import warnings
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


def export_int8(source: Path, target: Path) -> None:
    """``source`` (the torch folder) to ``target/model.onnx``, as kbsearch 0.1 built it."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

    bert = AutoModel.from_pretrained(str(source), local_files_only=True, attn_implementation="eager")
    example = tuple(
        torch.from_numpy(a)
        for a in (np.array([[0, 6, 2, 1, 1], [0, 6, 6, 6, 2]]), np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]))
    )
    axes = {
        "input_ids": {0: "batch", 1: "tokens"},
        "attention_mask": {0: "batch", 1: "tokens"},
        "sentence_embedding": {0: "batch"},
    }
    fp32 = target / "fp32.onnx"
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(PooledBert(bert).eval(), example, str(fp32), dynamo=False, opset_version=17,
                          input_names=["input_ids", "attention_mask"], output_names=["sentence_embedding"],
                          dynamic_axes=axes)  # fmt: skip
    logging.getLogger().setLevel(logging.ERROR)
    quantize_dynamic(str(fp32), str(target / "model.onnx"), weight_type=QuantType.QInt8)
    fp32.unlink()
