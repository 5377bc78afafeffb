"""multilingual-e5-small through onnxruntime, fp32 or int8.

Built once from the rebuilt sentence-transformers folder (see ``e5.py``):
``torch.onnx`` exports the ``BertModel`` with mean pooling and normalization
inside the graph, and for int8 onnxruntime's dynamic quantization rewrites
the weights. ``OnnxE5Session`` runs the graph with onnxruntime, ``tokenizers``
and numpy; kbsearch uses it through ``SentenceTransformer``, wrapped as a
module (``e5_onnx_module.py``), as it uses every model.

The build checks itself: the fp32 graph must agree with the torch model at
cosine >= 0.999 on a few texts, the int8 graph at >= 0.95 (int8 costs about
0.01 of cosine; much more would be a broken export).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kbsearch.embed.e5 import BUILD_INFO, build_atomically, cache_root, model_folder, write_build_info
from kbsearch.errors import KbError

ONNX_PIP = "pip install 'kbsearch[onnx]'"
MODEL_FILE = "model.onnx"
PAD_ID = 1
CHECK_TEXTS = (
    "query: KV cache 频域压缩合入 TensorRT-LLM",
    "query: zero-copy offloading of the KV cache between GPU and host memory",
    "query: 按题目难度控制推理长度",
)
MIN_AGREEMENT = {False: 0.999, True: 0.95}


def onnx_folder(quantized: bool) -> Path:
    """The exported (and, for int8, quantized) model with its tokenizer, built on first use."""
    _require("onnxruntime")
    # Named after the torch folder, which is only needed (and built) to export.
    source = model_folder(build=False)
    target = cache_root() / f"{source.name}-onnx{'-int8' if quantized else ''}"
    if not (target / BUILD_INFO).is_file():
        _require("onnx")
        source = model_folder()
        build_atomically(target, lambda work: _export(work, source, quantized))
    return target


def _require(module: str) -> None:
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise KbError(f"the onnx backends of multilingual-e5-small need the package {module}", hint=ONNX_PIP)


class OnnxE5Session:
    """The exported graph and its tokenizer: texts in, unit vectors out.

    Texts are sorted by token count and run in batches of ``batch``, so a
    batch wastes little on padding. With int8 weights, onnxruntime quantizes
    activations per batch, so a vector depends (by about 1e-3 of cosine) on
    which texts share its batch (not on their order).
    """

    def __init__(
        self, model_id: str, folder: Path, *, prompt: str = "", batch: int = 32, threads: int | None = None
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.model_id, self.prompt, self.batch = model_id, prompt, batch
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=512)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or os.cpu_count() or 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(folder / MODEL_FILE), options, providers=["CPUExecutionProvider"])
        self.dim = int(self.session.get_outputs()[0].shape[-1])

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch([self.prompt + t for t in texts])
        # Batches of similar length waste little on padding. Ties are broken by
        # the tokens, not the input order, so the batches (and, with int8, the
        # vectors) depend on which texts come in, not on how they are ordered:
        # SentenceTransformer hands them over sorted by its own measure.
        order = sorted(range(len(texts)), key=lambda i: (len(encodings[i].ids), encodings[i].ids))
        for start in range(0, len(order), self.batch):
            rows = order[start : start + self.batch]
            ids, mask = _pad([encodings[i].ids for i in rows])
            out[rows] = self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
        return out


def _pad(sequences: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    width = max(len(s) for s in sequences)
    ids = np.full((len(sequences), width), PAD_ID, dtype=np.int64)
    mask = np.zeros((len(sequences), width), dtype=np.int64)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = seq
        mask[row, : len(seq)] = 1
    return ids, mask


def _export(work: Path, source: Path, quantized: bool) -> None:
    from kbsearch.embed.e5_export import export_onnx

    fp32 = work / ("fp32.onnx" if quantized else MODEL_FILE)
    export_onnx(source, fp32, example=_pad([[0, 6, 2], [0, 6, 6, 6, 2]]))
    if quantized:
        _quantize(fp32, work / MODEL_FILE)
        fp32.unlink()
    shutil.copyfile(source / "tokenizer.json", work / "tokenizer.json")
    _check_agreement(work, source, quantized)
    write_build_info(
        work,
        source=str(source),
        runtime="onnxruntime",
        weights_runtime="int8 dynamic quantization" if quantized else "fp32",
    )


def _quantize(source: Path, target: Path) -> None:
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    # The quantizer logs advice through the root logger; the CLI owns stderr.
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8)
    finally:
        root.setLevel(level)


def _check_agreement(work: Path, source: Path, quantized: bool) -> None:
    from kbsearch.embed.e5 import load_sentence_transformer

    reference = load_sentence_transformer(source).encode(list(CHECK_TEXTS), normalize_embeddings=True)
    ours = OnnxE5Session("check", work, threads=1).encode(CHECK_TEXTS)
    worst = float(np.min(np.sum(reference * ours, axis=1)))
    if worst < MIN_AGREEMENT[quantized]:
        raise KbError(
            f"the ONNX export disagrees with the torch model (cosine {worst:.4f})",
            hint="report this with the versions of torch, onnx and onnxruntime",
        )
