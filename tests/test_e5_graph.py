"""multilingual-e5-small's ONNX graph, written with onnx.helper from the 4-bit
weights, on a tiny random model: against a numpy BERT written here from the
architecture (not from kbsearch's graph code), and through ``OnnxE5`` with a
tiny tokenizer. The real model's agreement with torch is in test_e5.py (slow).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from q4_file import tiny_bert_tensors, write_model

from kbsearch.embed import e5_onnx
from kbsearch.embed.e5 import tokenizer_path
from kbsearch.embed.e5_graph import bert_graph, token_graph
from kbsearch.embed.e5_onnx import OnnxE5, pad, write_graphs
from kbsearch.embed.q4 import read_q4_model

ort = pytest.importorskip("onnxruntime")
TINY = {"hidden": 32, "layers": 2, "heads": 2, "intermediate": 64, "vocab": 10, "max_positions": 16, "type_vocab": 2}
VOCAB = ["<s>", "<pad>", "</s>", "<unk>", "query:", "alpha", "beta", "gamma", "delta", "epsilon"]


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("q4") / "tiny.bin"
    write_model(path, TINY, tiny_bert_tensors(TINY, np.random.default_rng(5)))
    return path


def reference(weights: Path, ids: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """BERT as its paper and transformers' eager code define it: (sentence vectors, last hidden state)."""
    m = read_q4_model(weights)
    t, h, heads = m.tensors, m.hidden, m.heads
    d = h // heads

    def norm(x: np.ndarray, name: str) -> np.ndarray:
        mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + m.eps) * t[f"{name}.w"] + t[f"{name}.b"]

    def dense(x: np.ndarray, name: str, out: int) -> np.ndarray:
        return x @ t[f"{name}.w"].reshape(out, -1).T + t[f"{name}.b"]

    def split(x: np.ndarray) -> np.ndarray:
        return x.reshape(*x.shape[:2], heads, d).transpose(0, 2, 1, 3)

    length = ids.shape[1]
    x = t["emb.word"].reshape(m.vocab, h)[ids] + t["emb.type"].reshape(-1, h)[0] + t["emb.pos"].reshape(-1, h)[:length]
    x = norm(x, "emb.ln")
    masked = np.where(mask[:, None, None, :] == 1, 0.0, -1e30)
    erf = np.vectorize(math.erf)
    for layer in range(m.layers):
        n = f"l{layer}"
        q, k, v = (split(dense(x, f"{n}.{s}", h)) for s in "qkv")
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + masked
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(x.shape)
        x = norm(dense(context, f"{n}.ao", h) + x, f"{n}.aln")
        inner = dense(x, f"{n}.fi", m.intermediate)
        x = norm(dense(0.5 * inner * (1 + erf(inner / math.sqrt(2))), f"{n}.fo", h) + x, f"{n}.oln")
    mean = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
    return mean / np.linalg.norm(mean, axis=1, keepdims=True), x


def run(model: object, feed: dict[str, np.ndarray], outputs: list[str]) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])  # type: ignore[attr-defined]
    return session.run(outputs, feed)


def test_the_graph_computes_bert_with_mean_pooling(weights: Path) -> None:
    outputs = ["sentence_embedding", "token_embeddings"]
    ids, mask = pad([[0, 5, 6, 7, 2], [0, 8, 2]])  # the second padded: padding must change nothing
    sentence, tokens = run(bert_graph(read_q4_model(weights)), {"input_ids": ids, "attention_mask": mask}, outputs)
    want_sentence, want_tokens = reference(weights, ids, mask)
    assert np.allclose(sentence, want_sentence, atol=1e-5)
    assert np.allclose(tokens[0], want_tokens[0], atol=1e-4)
    assert np.allclose(tokens[1, :3], want_tokens[1, :3], atol=1e-4)
    ids, mask = pad([[0, 8, 2]])
    alone = run(bert_graph(read_q4_model(weights)), {"input_ids": ids, "attention_mask": mask}, outputs)[1]
    assert np.allclose(alone[0], tokens[1, :3], atol=1e-5)


def test_the_token_graph_is_the_graph_after_its_word_table(weights: Path) -> None:
    ids, mask = pad([[0, 5, 6, 7, 2], [0, 9, 2]])
    whole = run(bert_graph(read_q4_model(weights)), {"input_ids": ids, "attention_mask": mask}, ["token_embeddings"])
    model = read_q4_model(weights)
    table = model.tensors.pop("emb.word").reshape(model.vocab, model.hidden)
    part = run(token_graph(model), {"word_embeddings": table[ids], "attention_mask": mask}, ["token_embeddings"])
    assert np.allclose(whole[0], part[0], atol=1e-6)


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Unigram tokenizer of VOCAB's words, shaped as e5's (its normalizer copied)."""
    e5 = json.loads(tokenizer_path().read_text(encoding="utf-8"))
    pieces = [[w if w.startswith("<") else "\u2581" + w, 0.0 if w.startswith("<") else -1.0] for w in VOCAB]
    flags = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
    special = [{"id": i, "content": w, **flags} for i, w in enumerate(VOCAB) if w.startswith("<")]
    document = {
        "added_tokens": special,
        "normalizer": e5["normalizer"],
        "pre_tokenizer": e5["pre_tokenizer"],
        "model": {"type": "Unigram", "unk_id": VOCAB.index("<unk>"), "vocab": pieces},
    }
    path = tmp_path_factory.mktemp("tok") / "tokenizer.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.fixture(scope="module", params=[False, True], ids=["fp32", "int8"])
def folder(
    request: pytest.FixtureRequest, weights: Path, tokenizer: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    work = tmp_path_factory.mktemp("int8" if request.param else "fp32")
    write_graphs(work, weights, tokenizer, quantized=request.param)
    return work


def test_token_vectors_are_the_texts_own_float32_rows_whatever_the_backend(weights: Path, folder: Path) -> None:
    """One unit row per token of the text: no <s>, no prompt, no </s>; from float32
    weights beside the int8 graph too (the aligned decision was fitted on them)."""
    e5 = OnnxE5("tiny", folder, prompt="query: ", batch=2)
    texts = ["alpha beta gamma", "delta", "beta beta epsilon alpha"]
    rows = e5.encode_tokens(texts)
    assert [len(r) for r in rows] == e5.count_tokens(texts) == [3, 1, 4]
    for text, got in zip(texts, rows, strict=True):
        ids = [0, 4, *(VOCAB.index(w) for w in text.split()), 2]
        _, hidden = reference(weights, np.array([ids]), np.ones((1, len(ids)), dtype=np.int64))
        want = hidden[0, 2:-1] / np.linalg.norm(hidden[0, 2:-1], axis=1, keepdims=True)
        assert np.allclose(got, want, atol=1e-4)
    assert e5.encode_tokens([]) == [] and e5.count_tokens([]) == []


def test_sentence_vectors_come_from_the_graph(weights: Path, folder: Path) -> None:
    e5 = OnnxE5("tiny", folder, prompt="query: ")
    vectors = e5.encode(["alpha beta", "gamma"])
    assert vectors.shape == (2, 32) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    ids, mask = pad([[0, 4, 5, 6, 2], [0, 4, 7, 2]])
    want, _ = reference(weights, ids, mask)
    worst = float(np.min(np.sum(vectors * want, axis=1)))
    assert worst > (0.9 if "int8" in folder.name else 0.99999)
    assert e5.encode([]).shape == (0, 32)


def test_long_texts_are_cut_as_the_tokenizer_cuts_them(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tokenizers import Tokenizer, processors

    e5 = OnnxE5("tiny", folder, prompt="query: ")
    monkeypatch.setattr(e5_onnx, "MAX_TOKENS", 6)
    text = "alpha beta gamma delta epsilon alpha beta"
    theirs = Tokenizer.from_file(str(folder / "tokenizer.json"))
    theirs.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
    )
    own = theirs.encode("query: " + text)
    theirs.enable_truncation(max_length=6)
    assert e5._ids([text]) == [theirs.encode("query: " + text).ids]
    assert e5._ids([text])[0][-1] == 2 and len(own.ids) == 10
    assert e5.count_tokens([text]) == [7]  # counted whole: the aligned decision's cap reads it


def test_a_texts_vectors_are_its_own_whatever_is_embedded_beside_it(folder: Path) -> None:
    """A text's sentence vector and token vectors, to the bit, alone, beside texts of other
    lengths, and in another order: int8 scales a whole run's activations together, so a
    vector made in a run depended on the run, and a stored vector on what came with it."""
    e5 = OnnxE5("tiny", folder, prompt="query: ", batch=4)
    texts = ["alpha", "beta gamma delta epsilon alpha beta gamma", "gamma delta", "epsilon epsilon epsilon"]
    together, reordered = e5.encode(texts), e5.encode(texts[::-1])[::-1]
    tokens, tokens_reordered = e5.encode_tokens(texts), e5.encode_tokens(texts[::-1])[::-1]
    for i, text in enumerate(texts):
        alone = e5.encode([text])[0]
        assert np.array_equal(together[i], alone) and np.array_equal(reordered[i], alone)
        own = e5.encode_tokens([text])[0]
        assert np.array_equal(tokens[i], own) and np.array_equal(tokens_reordered[i], own)
